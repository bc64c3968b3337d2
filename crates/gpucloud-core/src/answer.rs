//! The status of the answer to one call, kept for that call only.
//!
//! When a 4xx/5xx body is not the JSON the spec declares (a proxy's HTML 502), progenitor
//! reports only the body's bytes (`InvalidResponsePayload`), not the status. [`with_answer`]
//! runs one call in a scope of its own (a tokio task-local, not shared with any other call,
//! even in the same task) where the transport records the status and `Retry-After` of what it
//! received, so the caller can still tell a 502 from a success it could not decode — per
//! response, with nothing kept once the call is over.

use std::cell::RefCell;
use std::future::Future;

/// What the last answer a call received said, apart from its body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer {
    /// The HTTP status.
    pub status: u16,
    /// The `Retry-After` header, as sent.
    pub retry_after: Option<String>,
}

tokio::task_local! {
    static ANSWER: RefCell<Option<Answer>>;
}

/// Runs `call` and returns its output with the [`Answer`] of the last response it received
/// (`None` if it received none, e.g. a connection error).
pub async fn with_answer<F: Future>(call: F) -> (F::Output, Option<Answer>) {
    ANSWER
        .scope(RefCell::new(None), async move {
            let output = call.await;
            let answer = ANSWER.with(|slot| slot.borrow_mut().take());
            (output, answer)
        })
        .await
}

/// Records `answer` for the call in whose [`with_answer`] scope this runs (else nothing).
pub(crate) fn record(answer: Answer) {
    let _ = ANSWER.try_with(|slot| *slot.borrow_mut() = Some(answer));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn each_call_sees_only_its_own_answer() {
        let answered = |status| async move {
            record(Answer {
                status,
                retry_after: None,
            });
            status
        };
        let ((a, first), (b, second)) =
            tokio::join!(with_answer(answered(502)), with_answer(answered(200)));
        assert_eq!((a, first.map(|x| x.status)), (502, Some(502)));
        assert_eq!((b, second.map(|x| x.status)), (200, Some(200)));
        let (_, none) = with_answer(async {}).await;
        assert_eq!(none, None);
        // Outside any scope, recording is a no-op.
        record(Answer {
            status: 500,
            retry_after: None,
        });
    }
}
