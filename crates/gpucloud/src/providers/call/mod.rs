//! Awaiting a generated client's call and turning its error into a [`crate::Error`]: classify
//! by status (after the provider's own [`ErrorRules`]), keep the raw body, read `Retry-After`,
//! name the JSON path of a decoding failure.

use std::time::Duration;

use progenitor_client::Error as ClientError;
use reqwest::header::{HeaderMap, RETRY_AFTER};
use serde::de::DeserializeOwned;
use serde_json::Value;

use gpucloud_core::{ClientContext, Scrubber};

use crate::cluster::ProviderKind;
use crate::error::{ApiError, DecodeError, Error, ValidationError, excerpt};

/// A provider's rules for error answers that the shared status table cannot know.
pub(crate) trait ErrorRules {
    /// The provider.
    const KIND: ProviderKind;

    /// The actionable kind of an error answer; by default the shared table ([`classify`]).
    fn classify(api: ApiError, retry_after: Option<Duration>) -> Error {
        classify(api, retry_after)
    }
}

/// What a provider's typed error envelope can tell us.
pub(crate) trait ErrorEnvelope {
    /// The provider's error code.
    fn code(&self) -> Option<String>;
    /// The provider's message.
    fn message(&self) -> Option<String>;
    /// A machine-readable reason (Runcrate `details.reason`).
    fn reason(&self) -> Option<String> {
        None
    }
}

/// A generated client's answer with what the hooks recorded of it.
#[derive(Debug)]
pub(crate) struct Answered<T> {
    /// The decoded body.
    pub value: T,
    /// The HTTP status.
    pub status: u16,
    /// The operation id the generated client passed to its hooks.
    pub operation: &'static str,
}

impl<T> Answered<T> {
    /// The same answer with its value mapped.
    pub(crate) fn map<U>(self, f: impl FnOnce(T) -> U) -> Answered<U> {
        Answered {
            value: f(self.value),
            status: self.status,
            operation: self.operation,
        }
    }

    /// The same answer with its value mapped by `f`, which may fail.
    pub(crate) fn try_map<U, E>(self, f: impl FnOnce(T) -> Result<U, E>) -> Result<Answered<U>, E> {
        Ok(Answered {
            value: f(self.value)?,
            status: self.status,
            operation: self.operation,
        })
    }
}

/// The operation an error names when no request was sent (refused while being built, where
/// no operation id reaches the hooks).
const NOT_SENT: &str = "(request not sent)";

/// Awaits a generated client call of provider `R` and maps its error, with `context` (the
/// sending client's) to recover statuses and to scrub its secrets from whatever the provider
/// sent back. The operation is the one the generated client named: no caller spells it.
pub(crate) async fn call<R, C, T, E, Fut>(
    context: &ClientContext<C>,
    request: Fut,
) -> Result<Answered<T>, Error>
where
    R: ErrorRules,
    T: DeserializeOwned,
    E: ErrorEnvelope,
    Fut: std::future::Future<Output = Result<progenitor_client::ResponseValue<T>, ClientError<E>>>,
{
    let (result, answer) = gpucloud_core::with_answer(request).await;
    match result {
        Ok(response) => Ok(Answered {
            status: response.status().as_u16(),
            operation: answer.map_or(NOT_SENT, |a| a.operation),
            value: response.into_inner(),
        }),
        Err(error) => {
            let error = map_error::<R, C, T, E>(context, answer, error).await;
            Err(scrub(error, context.scrubber()))
        }
    }
}

/// `error` with the client's secrets replaced in every text the provider sent.
pub(crate) fn scrub(mut error: Error, scrubber: &Scrubber) -> Error {
    if let Some(api) = error.api_error_mut() {
        for text in [&mut api.code, &mut api.message, &mut api.reason]
            .into_iter()
            .flatten()
        {
            scrubber.scrub_in_place(text);
        }
        scrubber.scrub_in_place(&mut api.body);
    }
    if let Error::Decode(decode) = &mut error {
        scrubber.scrub_in_place(&mut decode.message);
        scrubber.scrub_in_place(&mut decode.body_excerpt);
        scrubber.scrub_in_place(&mut decode.path);
    }
    error
}

/// Maps a generated client's error, with what the hooks recorded of the answer (operation,
/// status, raw body); `T` is the success type (used to name the JSON path when a success body
/// does not decode).
pub(crate) async fn map_error<R: ErrorRules, C, T: DeserializeOwned, E: ErrorEnvelope>(
    context: &ClientContext<C>,
    answer: Option<gpucloud_core::Answer>,
    error: ClientError<E>,
) -> Error {
    let provider = R::KIND;
    let operation = answer.as_ref().map_or(NOT_SENT, |a| a.operation);
    let raw_body = answer.as_ref().map(gpucloud_core::Answer::error_text);
    match error {
        ClientError::InvalidRequest(rule) => Error::Validation(ValidationError {
            provider,
            field: "request".into(),
            rule,
            source: "the provider's OpenAPI spec",
        }),
        ClientError::CommunicationError(source) | ClientError::ResponseBodyError(source)
            if gpucloud_core::is_body_too_large(&source) =>
        {
            Error::ResponseTooLarge {
                provider,
                operation,
                limit: context.max_response_bytes(),
            }
        }
        ClientError::CommunicationError(source) | ClientError::ResponseBodyError(source) => {
            Error::Transport {
                provider,
                operation,
                source: source.without_url(),
            }
        }
        ClientError::InvalidUpgrade(source) => Error::Transport {
            provider,
            operation,
            source: source.without_url(),
        },
        ClientError::ErrorResponse(response) => {
            let status = response.status().as_u16();
            let headers = response.headers().clone();
            let envelope = response.into_inner();
            let body = raw_body.unwrap_or_default();
            let api = ApiError {
                provider,
                operation,
                status,
                code: envelope.code(),
                message: envelope.message(),
                reason: envelope.reason(),
                retry_hint: None,
                body,
            };
            R::classify(api, retry_after(&headers))
        }
        ClientError::InvalidResponsePayload(bytes, error) => {
            // An error answer whose body is not the declared envelope (an HTML 502 from a proxy)
            // is still an error answer with a status, not an undecodable success.
            let answered = answer.and_then(|a| Some((a.status.filter(|s| *s >= 400)?, a)));
            if let Some((status, gpucloud_core::Answer { retry_after, .. })) = answered {
                let mut headers = HeaderMap::new();
                if let Some(value) = retry_after.and_then(|v| v.parse().ok()) {
                    headers.insert(RETRY_AFTER, value);
                }
                let body = String::from_utf8_lossy(&bytes).into_owned();
                return from_untyped_body::<R>(operation, status, &headers, body);
            }
            Error::Decode(decode_error::<T>(
                provider,
                operation,
                None,
                &bytes,
                &error.to_string(),
            ))
        }
        ClientError::UnexpectedResponse(response) => {
            let status = response.status().as_u16();
            let headers = response.headers().clone();
            // The body is unread (bounded by the client's cap, and buffered already when the
            // status is an error), so it is read whole here; the excerpt marks a cut.
            let body = response.text().await.unwrap_or_default();
            from_untyped_body::<R>(operation, status, &headers, body)
        }
        ClientError::Custom(rule) => Error::Validation(ValidationError {
            provider,
            field: "request".into(),
            rule,
            source: "the client's request hooks",
        }),
    }
}

/// An error answer whose body is not (or not known to be) the typed envelope: pull the usual
/// fields out of whatever JSON it is, keep the text either way.
pub(crate) fn from_untyped_body<R: ErrorRules>(
    operation: &'static str,
    status: u16,
    headers: &HeaderMap,
    body: String,
) -> Error {
    let json: Value = serde_json::from_str(&body).unwrap_or(Value::Null);
    let text = |pointer: &str| match json.pointer(pointer) {
        Some(Value::String(s)) => Some(s.clone()),
        Some(Value::Number(n)) => Some(n.to_string()),
        _ => None,
    };
    let api = ApiError {
        provider: R::KIND,
        operation,
        status,
        code: text("/error/code").or_else(|| text("/code")),
        message: text("/error/message")
            .or_else(|| text("/message"))
            .or_else(|| text("/detail")),
        reason: text("/error/details/reason"),
        retry_hint: None,
        body: excerpt(&body, gpucloud_core::ERROR_BODY_LIMIT),
    };
    R::classify(api, retry_after(headers))
}

/// The kind of a refusal (a 4xx other than 401, 403, 404, 408, 409 and 429) that says in
/// words what it is, for providers that document no code for it (Together, E2E): a code
/// `insufficient_capacity` or a message about capacity is [`Error::NoCapacity`], a message
/// about quota is [`Error::InsufficientFunds`]; anything else goes to [`classify`]. A 4xx
/// created nothing, so reading its words can only change which refusal it is called, never
/// whether a create is repeated.
pub(crate) fn classify_by_words(api: ApiError, retry_after: Option<Duration>) -> Error {
    let refusal = (400..500).contains(&api.status)
        && !matches!(api.status, 401 | 403 | 404 | 408 | 409 | 429);
    if refusal {
        let code = api.code.as_deref().unwrap_or("").to_ascii_lowercase();
        let message = api.message.as_deref().unwrap_or("").to_ascii_lowercase();
        if code == "insufficient_capacity" || message.contains("capacity") {
            return Error::NoCapacity(api);
        }
        if code.contains("quota") || message.contains("quota") {
            return Error::InsufficientFunds(api);
        }
    }
    classify(api, retry_after)
}

/// The actionable kind of an error answer by its HTTP status, the same for every provider.
pub(crate) fn classify(api: ApiError, retry_after: Option<Duration>) -> Error {
    match api.status {
        401 | 403 => Error::Authentication(api),
        402 => Error::InsufficientFunds(api),
        404 => Error::NotFound(api),
        409 => Error::Conflict(api),
        429 => Error::RateLimited {
            error: api,
            retry_after,
        },
        _ => Error::Api(api),
    }
}

/// `Retry-After` as seconds or as an HTTP date (RFC 9110 §10.2.3). A number of seconds too
/// large for any clock is `Duration::MAX` (so it exceeds every ceiling and ends the retries,
/// rather than being ignored and retried at once); a date in the past is zero.
pub(crate) fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    let value = headers.get(RETRY_AFTER)?.to_str().ok()?.trim();
    if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) {
        return Some(
            value
                .parse::<u64>()
                .map_or(Duration::MAX, Duration::from_secs),
        );
    }
    let date = chrono::DateTime::parse_from_rfc2822(value).ok()?;
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .ok()?;
    let wait = date.timestamp() - i64::try_from(now.as_secs()).ok()?;
    Some(Duration::from_secs(u64::try_from(wait).unwrap_or(0)))
}

/// A decoding failure with the JSON path that broke, found by decoding again with
/// `serde_path_to_error` (serde_json alone only gives line and column).
pub(crate) fn decode_error<T: DeserializeOwned>(
    provider: ProviderKind,
    operation: &'static str,
    status: Option<u16>,
    bytes: &[u8],
    fallback_message: &str,
) -> DecodeError {
    let mut deserializer = serde_json::Deserializer::from_slice(bytes);
    let (path, message) = match serde_path_to_error::deserialize::<_, T>(&mut deserializer) {
        Err(e) => (e.path().to_string(), e.inner().to_string()),
        Ok(_) => (".".to_string(), fallback_message.to_string()),
    };
    DecodeError {
        provider,
        operation,
        status,
        path,
        message,
        body_excerpt: excerpt(&String::from_utf8_lossy(bytes), 512),
    }
}

#[cfg(test)]
pub(crate) mod tests;
