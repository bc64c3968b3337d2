//! What one call received, kept for that call only: its operation, status, `Retry-After` and,
//! for an error answer, the body's bytes exactly as sent.
//!
//! progenitor hands back less than a caller needs: a 4xx/5xx body it decoded into the spec's
//! error type loses its bytes (undocumented fields included), one that is not the declared JSON
//! (a proxy's HTML 502) loses its status (`InvalidResponsePayload` carries only the bytes), and
//! no error says which operation failed. The generated hooks see all of it. [`with_answer`]
//! runs one call in a scope of its own (a tokio task-local, not shared with any other call,
//! even in the same task) where the transport records an [`Answer`] as the request goes out and
//! completes it when the response arrives; nothing is kept once the call is over.

use std::cell::RefCell;
use std::future::Future;

/// At most this many bytes of an error answer's body are kept in [`Answer::error_body`].
pub const ERROR_BODY_LIMIT: usize = 64 * 1024;

/// What the last request a call sent received.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer {
    /// The operation id, as the generated client passed it to its hooks.
    pub operation: &'static str,
    /// The HTTP status; `None` if no response came (a connection error, a timeout).
    pub status: Option<u16>,
    /// The `Retry-After` header, as sent.
    pub retry_after: Option<String>,
    /// An error answer's body (status 4xx or 5xx), at most [`ERROR_BODY_LIMIT`] bytes of it;
    /// `None` for a success or when no body could be read.
    pub error_body: Option<Vec<u8>>,
}

impl Answer {
    /// The error body as text (invalid UTF-8 replaced), empty when there is none.
    pub fn error_text(&self) -> String {
        self.error_body
            .as_deref()
            .map(|bytes| String::from_utf8_lossy(bytes).into_owned())
            .unwrap_or_default()
    }
}

tokio::task_local! {
    static ANSWER: RefCell<Option<Answer>>;
}

/// Runs `call` and returns its output with the [`Answer`] of the last request it sent (`None`
/// if it sent none: a request refused while it was being built).
pub async fn with_answer<F: Future>(call: F) -> (F::Output, Option<Answer>) {
    ANSWER
        .scope(RefCell::new(None), async move {
            let output = call.await;
            let answer = ANSWER.with(|slot| slot.borrow_mut().take());
            (output, answer)
        })
        .await
}

/// Starts the record of a request for `operation` in the current [`with_answer`] scope (else
/// nothing): whatever an earlier request of the same call left is replaced.
pub(crate) fn sending(operation: &'static str) {
    let _ = ANSWER.try_with(|slot| {
        *slot.borrow_mut() = Some(Answer {
            operation,
            status: None,
            retry_after: None,
            error_body: None,
        })
    });
}

/// Adds what the response said to the record [`sending`] started.
pub(crate) fn received(status: u16, retry_after: Option<String>, error_body: Option<&[u8]>) {
    let _ = ANSWER.try_with(|slot| {
        if let Some(answer) = slot.borrow_mut().as_mut() {
            answer.status = Some(status);
            answer.retry_after = retry_after;
            answer.error_body =
                error_body.map(|bytes| bytes[..bytes.len().min(ERROR_BODY_LIMIT)].to_vec());
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn each_call_sees_only_its_own_answer() {
        let answered = |operation, status| async move {
            sending(operation);
            received(status, None, (status >= 400).then_some(&b"no"[..]));
            status
        };
        let ((a, first), (b, second)) = tokio::join!(
            with_answer(answered("one", 502)),
            with_answer(answered("two", 200))
        );
        let first = first.unwrap();
        assert_eq!((a, first.operation, first.status), (502, "one", Some(502)));
        assert_eq!(first.error_text(), "no");
        let second = second.unwrap();
        assert_eq!(
            (b, second.operation, second.status),
            (200, "two", Some(200))
        );
        assert_eq!(
            (second.error_text(), second.error_body),
            (String::new(), None)
        );
        let (_, none) = with_answer(async {}).await;
        assert_eq!(none, None);
        // Outside any scope, recording is a no-op.
        sending("three");
        received(500, None, None);
    }

    #[tokio::test]
    async fn a_later_request_replaces_the_record_and_bodies_are_capped() {
        let (_, answer) = with_answer(async {
            sending("first");
            received(503, Some("7".into()), Some(b"busy"));
            sending("second");
            received(500, None, Some(&vec![b'x'; ERROR_BODY_LIMIT + 10]));
        })
        .await;
        let answer = answer.unwrap();
        assert_eq!(answer.operation, "second");
        assert_eq!((answer.status, answer.retry_after), (Some(500), None));
        assert_eq!(answer.error_body.map(|b| b.len()), Some(ERROR_BODY_LIMIT));
        // A request that got no response keeps its operation and no status.
        let (_, answer) = with_answer(async { sending("lost") }).await;
        assert_eq!(
            answer.map(|a| (a.operation, a.status)),
            Some(("lost", None))
        );
    }
}
