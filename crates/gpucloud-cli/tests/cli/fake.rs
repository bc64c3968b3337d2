//! A provider on a bad day: a plain HTTP/1.1 server on a thread that answers every request
//! with what the test's handler says, and records what it was sent. Each answer closes the
//! connection, so the client opens a fresh one per request.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

/// A request as the server received it.
#[derive(Debug, Clone)]
pub struct Request {
    pub method: String,
    /// Path and query, as sent (`/v1/compute/clusters/c-1`).
    pub target: String,
    /// `(lower-case name, value)`.
    pub headers: Vec<(String, String)>,
    /// The body, as text (at most 1 MiB is kept).
    pub body: String,
}

impl Request {
    /// The value of header `name` (lower case), or "".
    pub fn header(&self, name: &str) -> &str {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map_or("", |(_, v)| v.as_str())
    }

    /// The path without the query.
    pub fn path(&self) -> &str {
        self.target.split('?').next().unwrap_or_default()
    }
}

/// How an answer is delivered: whole, or in one of the ways a provider on a bad day (or the
/// network in between) delivers it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Delivery {
    /// Status, headers and the whole body, `Content-Length` exact.
    Whole,
    /// `Content-Length` announces the body, half of it is sent, then the connection closes.
    Truncated,
    /// The connection is closed without an answer, after the request was read.
    Reset,
    /// A body of this many bytes (the body given is its start, filler follows), with its
    /// `Content-Length`.
    Huge(usize),
    /// A chunked body that never ends (until the client hangs up).
    Endless,
}

/// An answer: a status, headers, a body, and how and when it is delivered.
#[derive(Debug, Clone)]
pub struct Reply {
    pub status: u16,
    pub body: String,
    pub content_type: &'static str,
    /// Extra headers (`Retry-After`, …).
    pub headers: Vec<(String, String)>,
    /// Waited before anything is written.
    pub delay: std::time::Duration,
    pub delivery: Delivery,
}

impl Reply {
    pub fn json(status: u16, body: &serde_json::Value) -> Self {
        Self::raw(status, "application/json", body.to_string())
    }

    /// A body sent as is, with `content_type`.
    pub fn raw(status: u16, content_type: &'static str, body: impl Into<String>) -> Self {
        Self {
            status,
            body: body.into(),
            content_type,
            headers: Vec::new(),
            delay: std::time::Duration::ZERO,
            delivery: Delivery::Whole,
        }
    }

    /// Adds a header.
    pub fn header(mut self, name: &str, value: &str) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// Waits `delay` before answering.
    pub fn after(mut self, delay: std::time::Duration) -> Self {
        self.delay = delay;
        self
    }

    /// Delivers the answer as `delivery` says.
    pub fn delivered(mut self, delivery: Delivery) -> Self {
        self.delivery = delivery;
        self
    }
}

type Handler = dyn Fn(&Request) -> Reply + Send + Sync;

/// The server; stopped on drop.
pub struct FakeProvider {
    port: u16,
    requests: Arc<Mutex<Vec<Request>>>,
    stop: Arc<AtomicBool>,
}

impl FakeProvider {
    pub fn start(handler: impl Fn(&Request) -> Reply + Send + Sync + 'static) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap_or_else(|e| panic!("bind: {e}"));
        let port = listener
            .local_addr()
            .unwrap_or_else(|e| panic!("addr: {e}"))
            .port();
        let requests = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let handler: Arc<Handler> = Arc::new(handler);
        let (seen, stopped) = (requests.clone(), stop.clone());
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                if stopped.load(Ordering::SeqCst) {
                    break;
                }
                if let Ok(stream) = stream {
                    // One thread per connection: a slow or endless answer holds up no other.
                    let (handler, seen, stopped) = (handler.clone(), seen.clone(), stopped.clone());
                    std::thread::spawn(move || serve(stream, handler.as_ref(), &seen, &stopped));
                }
            }
        });
        Self {
            port,
            requests,
            stop,
        }
    }

    /// `http://127.0.0.1:PORT` followed by `path`.
    pub fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }

    /// Every request received so far.
    pub fn requests(&self) -> Vec<Request> {
        self.requests
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }
}

impl Drop for FakeProvider {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wakes the accept loop so that it sees the flag.
        let _ = TcpStream::connect(("127.0.0.1", self.port));
    }
}

fn serve(stream: TcpStream, handler: &Handler, seen: &Mutex<Vec<Request>>, stop: &AtomicBool) {
    let _ = stream.set_read_timeout(Some(std::time::Duration::from_secs(10)));
    let mut reader = BufReader::new(&stream);
    let mut line = String::new();
    if reader.read_line(&mut line).is_err() || line.trim().is_empty() {
        return;
    }
    let mut parts = line.split_whitespace();
    let method = parts.next().unwrap_or_default().to_string();
    let target = parts.next().unwrap_or_default().to_string();
    let mut headers = Vec::new();
    loop {
        let mut header = String::new();
        if reader.read_line(&mut header).is_err() || header.trim().is_empty() {
            break;
        }
        if let Some((name, value)) = header.split_once(':') {
            headers.push((name.trim().to_ascii_lowercase(), value.trim().to_string()));
        }
    }
    let mut request = Request {
        method,
        target,
        headers,
        body: String::new(),
    };
    let length: u64 = request.header("content-length").parse().unwrap_or(0);
    let mut body = Vec::new();
    let _ = reader
        .by_ref()
        .take(length.min(1 << 20))
        .read_to_end(&mut body);
    let _ = std::io::copy(
        &mut reader.by_ref().take(length.saturating_sub(1 << 20)),
        &mut std::io::sink(),
    );
    request.body = String::from_utf8_lossy(&body).into_owned();
    let reply = handler(&request);
    seen.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .push(request);
    // A long delay ends early when the server stops.
    let until = std::time::Instant::now() + reply.delay;
    while std::time::Instant::now() < until && !stop.load(Ordering::SeqCst) {
        std::thread::sleep(std::time::Duration::from_millis(20).min(reply.delay));
    }
    let _ = deliver(&stream, &reply, stop);
}

/// Writes `reply` as its delivery says; an error means the client hung up.
fn deliver(mut stream: &TcpStream, reply: &Reply, stop: &AtomicBool) -> std::io::Result<()> {
    let mut head = format!(
        "HTTP/1.1 {} Fake\r\nContent-Type: {}\r\nConnection: close\r\n",
        reply.status, reply.content_type
    );
    for (name, value) in &reply.headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    let body = reply.body.as_bytes();
    match reply.delivery {
        Delivery::Reset => return Ok(()),
        Delivery::Whole => {
            head.push_str(&format!("Content-Length: {}\r\n\r\n", body.len()));
            stream.write_all(head.as_bytes())?;
            stream.write_all(body)?;
        }
        Delivery::Truncated => {
            head.push_str(&format!("Content-Length: {}\r\n\r\n", body.len() + 64));
            stream.write_all(head.as_bytes())?;
            stream.write_all(&body[..body.len() / 2])?;
        }
        Delivery::Huge(size) => {
            head.push_str(&format!("Content-Length: {size}\r\n\r\n"));
            stream.write_all(head.as_bytes())?;
            let start = &body[..body.len().min(size)];
            stream.write_all(start)?;
            let filler = [b'x'; 64 * 1024];
            let mut left = size - start.len();
            while left > 0 && !stop.load(Ordering::SeqCst) {
                let n = left.min(filler.len());
                stream.write_all(&filler[..n])?;
                left -= n;
            }
        }
        Delivery::Endless => {
            head.push_str("Transfer-Encoding: chunked\r\n\r\n");
            stream.write_all(head.as_bytes())?;
            stream.write_all(format!("{:x}\r\n", body.len().max(1)).as_bytes())?;
            stream.write_all(if body.is_empty() { b" " } else { body })?;
            stream.write_all(b"\r\n")?;
            let chunk = [b'x'; 64 * 1024];
            // Never ends on its own; a safety stop at 1 GiB for a client that reads forever.
            for _ in 0..(1 << 14) {
                if stop.load(Ordering::SeqCst) {
                    break;
                }
                stream.write_all(format!("{:x}\r\n", chunk.len()).as_bytes())?;
                stream.write_all(&chunk)?;
                stream.write_all(b"\r\n")?;
            }
        }
    }
    stream.flush()
}

/// A documented example answer from `tests/fixtures/` (the repository's, shared with the
/// integration tests).
pub fn fixture(path: &str) -> serde_json::Value {
    let full = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures")
        .join(path);
    let text = std::fs::read_to_string(&full).unwrap_or_else(|e| panic!("{}: {e}", full.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", full.display()))
}
