//! The suite both backends pass — SQLite (a file) and PostgreSQL (a private server this test
//! starts): of several callers creating one name at once, tasks or processes, exactly one POST
//! reaches the provider and every caller gets the same cluster; a caller that died holding the
//! name is taken over without a second cluster, whether it died after its POST (its process
//! gone) or only stopped renewing its lease; and, on PostgreSQL, a database that stops in the
//! middle of a run lets no create through unrecorded.
//!
//! `backend` holds the two backends and what the tests count; `children` the child process of
//! the process tests; each other module is one concern of the suite.

mod backend;
mod children;
mod claims;
mod lists;
mod outage;
mod races;
mod takeover;
