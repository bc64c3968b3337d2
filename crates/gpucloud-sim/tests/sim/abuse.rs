//! The simulator against abusive clients, on raw TCP: a huge request body is refused with
//! 413 after at most the cap has been read, an idle connection is closed, and a client that
//! stalls or trickles its header is cut off.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::io::{ErrorKind, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use gpucloud_sim::{Fault, FaultKind, Provider, RunningSim, SimConfig, Simulator, credentials};

/// What the streamed-body tests send: 300 MB, never allocated (one 64 KiB chunk, repeated).
const HUGE: usize = 300 * 1000 * 1000;
const CHUNK: usize = 64 * 1024;

async fn start(config: SimConfig) -> RunningSim {
    Simulator::start(SimConfig {
        time_scale: 0.0,
        ..config
    })
    .await
    .unwrap()
}

fn head(method: &str, path: &str, extra: &str) -> String {
    format!(
        "{method} /together/v1{path} HTTP/1.1\r\nHost: sim\r\nAuthorization: Bearer {}\r\n{extra}\r\n",
        credentials::TOGETHER_API_KEY
    )
}

/// Reads one response (head and `Content-Length` body): its status and body.
fn read_response(stream: &mut TcpStream) -> std::io::Result<(u16, String)> {
    let mut buf = Vec::new();
    let mut byte = [0u8; 4096];
    let head_end = loop {
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
        let n = stream.read(&mut byte)?;
        if n == 0 {
            return Err(ErrorKind::UnexpectedEof.into());
        }
        buf.extend_from_slice(&byte[..n]);
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).to_ascii_lowercase();
    let status = head[9..12].parse().unwrap();
    let length: usize = head
        .lines()
        .find_map(|l| l.strip_prefix("content-length:"))
        .map_or(0, |v| v.trim().parse().unwrap());
    while buf.len() < head_end + length {
        let n = stream.read(&mut byte)?;
        if n == 0 {
            return Err(ErrorKind::UnexpectedEof.into());
        }
        buf.extend_from_slice(&byte[..n]);
    }
    let body = String::from_utf8_lossy(&buf[head_end..head_end + length]).into_owned();
    Ok((status, body))
}

/// Waits for the server to close `stream`: how long it took, or `None` if it stayed open.
fn closed_within(stream: &mut TcpStream, limit: Duration) -> Option<Duration> {
    let start = Instant::now();
    stream.set_read_timeout(Some(limit)).unwrap();
    let mut byte = [0u8; 1024];
    loop {
        match stream.read(&mut byte) {
            Ok(0) => return Some(start.elapsed()),
            Ok(_) => {}
            Err(e) if e.kind() == ErrorKind::ConnectionReset => return Some(start.elapsed()),
            Err(_) => return None,
        }
    }
}

/// Sends a create whose chunked body is `HUGE` bytes while reading the answer: the status,
/// the body and how many body bytes had been written when the answer arrived.
fn stream_huge_body(addr: SocketAddr) -> (u16, String, usize) {
    let mut writer = TcpStream::connect(addr).unwrap();
    let mut reader = writer.try_clone().unwrap();
    reader
        .set_read_timeout(Some(Duration::from_secs(120)))
        .unwrap();
    let answered = Arc::new(AtomicBool::new(false));
    let stop = answered.clone();
    let sender = std::thread::spawn(move || {
        let head = head(
            "POST",
            "/compute/clusters",
            "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n",
        );
        writer.write_all(head.as_bytes()).unwrap();
        let chunk = [b' '; CHUNK];
        let mut sent = 0;
        while sent < HUGE && !stop.load(Ordering::SeqCst) {
            let frame = format!("{CHUNK:x}\r\n");
            let ok = writer.write_all(frame.as_bytes()).is_ok()
                && writer.write_all(&chunk).is_ok()
                && writer.write_all(b"\r\n").is_ok();
            if !ok {
                break;
            }
            sent += CHUNK;
        }
        let _ = writer.write_all(b"0\r\n\r\n");
        sent
    });
    let (status, body) = read_response(&mut reader).unwrap();
    answered.store(true, Ordering::SeqCst);
    let sent_then = sender.join().unwrap();
    (status, body, sent_then)
}

/// The resident set of this process (the simulator runs in it), where the OS tells.
fn resident_bytes() -> Option<usize> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: usize = statm.split_whitespace().nth(1)?.parse().ok()?;
    Some(pages * 4096)
}

#[tokio::test]
async fn a_300_mb_streamed_body_is_answered_413_before_it_is_sent() {
    let sim = start(SimConfig::default()).await;
    let addr = sim.addr();
    let before = resident_bytes();
    let (status, body, sent) = tokio::task::spawn_blocking(move || stream_huge_body(addr))
        .await
        .unwrap();
    assert_eq!(status, 413, "{body}");
    assert!(
        body.contains("1048576 bytes"),
        "the answer names the limit: {body}"
    );
    let body: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert!(
        body["message"].is_string(),
        "Together's error shape: {body}"
    );
    assert!(
        sent < 64 * 1024 * 1024,
        "answered after {sent} of {HUGE} bytes: the server read far past its 1 MiB cap"
    );
    if let (Some(before), Some(after)) = (before, resident_bytes()) {
        let grown = after.saturating_sub(before);
        assert!(grown < 64 * 1024 * 1024, "memory grew by {grown} bytes");
    }
    let exchange = sim.exchanges().pop().unwrap();
    assert_eq!(exchange.status, Some(413));
    assert!(sim.clusters(Provider::Together).is_empty());
    sim.shutdown().await;
}

#[tokio::test]
async fn a_declared_content_length_over_the_cap_is_refused_at_once() {
    let sim = start(SimConfig {
        max_request_body_bytes: 1000,
        ..SimConfig::default()
    })
    .await;
    let addr = sim.addr();
    let (status, body) = tokio::task::spawn_blocking(move || {
        let mut stream = TcpStream::connect(addr).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(5)))
            .unwrap();
        // Declares 300 MB and sends none of it: only the header can be judged.
        let head = head(
            "POST",
            "/compute/clusters",
            &format!("Content-Type: application/json\r\nContent-Length: {HUGE}\r\n"),
        );
        stream.write_all(head.as_bytes()).unwrap();
        read_response(&mut stream).expect("an answer before any body byte")
    })
    .await
    .unwrap();
    assert_eq!(status, 413, "{body}");
    assert!(body.contains("1000 bytes"), "{body}");
    sim.shutdown().await;
}

#[tokio::test]
async fn the_413_answer_is_in_each_providers_error_shape() {
    let sim = start(SimConfig {
        max_request_body_bytes: 100,
        ..SimConfig::default()
    })
    .await;
    let padding = "x".repeat(200);
    let creates = [
        (Provider::Together, "/compute/clusters", "/message"),
        (Provider::Runcrate, "/clusters", "/error/message"),
        (Provider::E2e, "/distributed_jobs_v2/cluster/", "/message"),
    ];
    for (provider, path, message) in creates {
        let body = serde_json::json!({ "name": padding });
        let answer = common::send(&sim, provider, "POST", path, Some(body), &[]).await;
        assert_eq!(answer.status, 413, "{provider:?}: {}", answer.text);
        assert_eq!(
            answer.json.pointer(message).and_then(|m| m.as_str()),
            Some("request body larger than 100 bytes"),
            "{provider:?}: {}",
            answer.text
        );
        assert_eq!(answer.headers["connection"], "close");
    }
    sim.shutdown().await;
}

#[tokio::test]
async fn a_body_at_the_cap_is_still_read() {
    let sim = start(SimConfig {
        max_request_body_bytes: 64,
        ..SimConfig::default()
    })
    .await;
    let addr = sim.addr();
    let status = tokio::task::spawn_blocking(move || {
        let mut stream = TcpStream::connect(addr).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(5)))
            .unwrap();
        let body = format!("{:<64}", "{}");
        let head = head("POST", "/compute/clusters", "Content-Length: 64\r\n");
        stream.write_all(head.as_bytes()).unwrap();
        stream.write_all(body.as_bytes()).unwrap();
        read_response(&mut stream).unwrap().0
    })
    .await
    .unwrap();
    assert_eq!(status, 400, "validated (and refused) as usual, not 413");
    sim.shutdown().await;
}

#[tokio::test]
async fn an_idle_connection_is_closed_after_the_idle_timeout() {
    let sim = start(SimConfig {
        idle_timeout: Duration::from_millis(300),
        ..SimConfig::default()
    })
    .await;
    let addr = sim.addr();
    let closed = tokio::task::spawn_blocking(move || {
        let mut stream = TcpStream::connect(addr).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(5)))
            .unwrap();
        stream
            .write_all(head("GET", "/compute/regions", "").as_bytes())
            .unwrap();
        assert_eq!(read_response(&mut stream).unwrap().0, 200);
        // Kept alive after the answer, then idle.
        closed_within(&mut stream, Duration::from_secs(5))
    })
    .await
    .unwrap();
    let closed = closed.expect("the server kept an idle connection open for 5 s");
    assert!(
        closed >= Duration::from_millis(200),
        "closed after {closed:?}"
    );
    sim.shutdown().await;
}

#[tokio::test]
async fn a_connection_that_never_sends_anything_is_closed_after_the_idle_timeout() {
    let sim = start(SimConfig {
        idle_timeout: Duration::from_millis(300),
        ..SimConfig::default()
    })
    .await;
    let addr = sim.addr();
    let closed = tokio::task::spawn_blocking(move || {
        let mut stream = TcpStream::connect(addr).unwrap();
        closed_within(&mut stream, Duration::from_secs(5))
    })
    .await
    .unwrap();
    assert!(closed.is_some(), "a silent connection stayed open for 5 s");
    sim.shutdown().await;
}

#[tokio::test]
async fn a_slow_answer_longer_than_the_idle_timeout_is_not_cut() {
    let sim = start(SimConfig {
        idle_timeout: Duration::from_millis(200),
        header_read_timeout: Duration::from_millis(200),
        ..SimConfig::default()
    })
    .await;
    sim.faults().inject(
        Fault::new(
            Provider::Together,
            FaultKind::Slow {
                delay: Duration::from_millis(800),
            },
        )
        .on("list_regions"),
    );
    let addr = sim.addr();
    let status = tokio::task::spawn_blocking(move || {
        let mut stream = TcpStream::connect(addr).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(5)))
            .unwrap();
        stream
            .write_all(head("GET", "/compute/regions", "").as_bytes())
            .unwrap();
        read_response(&mut stream).map(|(status, _)| status)
    })
    .await
    .unwrap();
    assert_eq!(
        status.unwrap(),
        200,
        "a request in flight is not idle, however long it takes"
    );
    sim.shutdown().await;
}

#[tokio::test]
async fn half_a_header_then_silence_is_cut_off_at_the_header_timeout() {
    let sim = start(SimConfig {
        header_read_timeout: Duration::from_millis(300),
        idle_timeout: Duration::from_secs(60),
        ..SimConfig::default()
    })
    .await;
    let addr = sim.addr();
    let closed = tokio::task::spawn_blocking(move || {
        let mut stream = TcpStream::connect(addr).unwrap();
        stream
            .write_all(b"GET /together/v1/compute/regions HTTP/1.1\r\nHost: sim\r\n")
            .unwrap();
        closed_within(&mut stream, Duration::from_secs(5))
    })
    .await
    .unwrap();
    let closed = closed.expect("a half-sent header held the connection for 5 s");
    assert!(
        closed >= Duration::from_millis(200),
        "closed after {closed:?}"
    );
    sim.shutdown().await;
}

#[tokio::test]
async fn a_header_trickled_byte_by_byte_is_cut_off_at_the_header_timeout() {
    let sim = start(SimConfig {
        header_read_timeout: Duration::from_millis(500),
        idle_timeout: Duration::from_secs(60),
        ..SimConfig::default()
    })
    .await;
    let addr = sim.addr();
    let (cut_after, sent) = tokio::task::spawn_blocking(move || {
        let mut stream = TcpStream::connect(addr).unwrap();
        let start = Instant::now();
        let start_line = b"GET /together/v1/compute/regions HTTP/1.1\r\nX-Padding: ";
        stream.write_all(start_line).unwrap();
        let mut sent = start_line.len();
        // Then one byte every 50 ms of a header value that never ends: each byte is
        // activity, none of it completes the header.
        for _ in 0..200 {
            if stream.write_all(b"a").is_err() {
                break;
            }
            sent += 1;
            std::thread::sleep(Duration::from_millis(50));
            if start.elapsed() > Duration::from_secs(5) {
                break;
            }
        }
        (start.elapsed(), sent)
    })
    .await
    .unwrap();
    assert!(
        cut_after < Duration::from_secs(3),
        "still connected after {cut_after:?} ({sent} bytes trickled)"
    );
    sim.shutdown().await;
}
