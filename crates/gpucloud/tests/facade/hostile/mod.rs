//! The facade against a provider on a bad day: lists that lag behind creates, absurd
//! `Retry-After`s, conflicts, answers without ids, a retry budget that runs dry, ids that would
//! send a request to the wrong place, answers about another cluster, numbers that do not add
//! up. Every create is counted: where the first POST may have landed, there is exactly one.

mod bounded;
mod echoes;
mod ids;
mod lagging_list;
mod numbers;
