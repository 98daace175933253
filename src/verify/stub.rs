//! A Messages API stub on loopback: the real client talks to it instead of the network.
//!
//! It binds `127.0.0.1` on an ephemeral port, records every request, and answers:
//! - `POST` with `"stream": true` → a complete SSE stream (`message_start`, one text block
//!   saying `ok`, `message_delta` with `end_turn`, `message_stop`);
//! - any other `POST` → the same message as one JSON body;
//! - `GET` and anything else → `{}`.
//!
//! These are the shapes the oracle's `capture.py` serves, which Claude Code 2.1.332 accepts.
//! A request from a non-loopback peer, or whose `Host` header names anything but a loopback
//! host, gets `403` and is recorded as refused (it never counts as a captured request).

use std::io::Read;
use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use serde_json::{Value, json};
use tiny_http::{Header, Request, Response, Server};

/// Request bodies larger than this are cut (no real first request comes near it).
const MAX_BODY_BYTES: u64 = 256 * 1024 * 1024;

/// One request the stub received.
#[derive(Debug, Clone)]
pub struct Recorded {
    /// HTTP method (`POST`, `GET`, …).
    pub method: String,
    /// Path with query (`/v1/messages?beta=true`).
    pub path: String,
    /// Headers, names lower-cased, in arrival order.
    pub headers: Vec<(String, String)>,
    /// The body parsed as JSON (`Null` when it is not JSON).
    pub body: Value,
    /// Why the stub refused it (non-loopback peer or host), if it did.
    pub refused: Option<String>,
}

impl Recorded {
    /// The first value of a header (name compared case-insensitively).
    pub fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.headers
            .iter()
            .find(|(k, _)| *k == name)
            .map(|(_, v)| v.as_str())
    }

    /// True for an accepted Messages API call carrying messages.
    pub fn is_messages_call(&self) -> bool {
        self.refused.is_none()
            && self.method == "POST"
            && self.path.starts_with("/v1/messages")
            && self
                .body
                .get("messages")
                .and_then(Value::as_array)
                .is_some_and(|m| !m.is_empty())
    }
}

/// A running stub; it stops when dropped.
pub struct Stub {
    server: Arc<Server>,
    addr: SocketAddr,
    log: Arc<Mutex<Vec<Recorded>>>,
    thread: Option<JoinHandle<()>>,
}

impl Stub {
    /// Binds `127.0.0.1:0` and starts serving on a background thread.
    pub fn start() -> std::io::Result<Stub> {
        let server = Server::http("127.0.0.1:0").map_err(std::io::Error::other)?;
        let addr = server
            .server_addr()
            .to_ip()
            .ok_or_else(|| std::io::Error::other("stub is not bound to an IP address"))?;
        let server = Arc::new(server);
        let log = Arc::new(Mutex::new(Vec::new()));
        let thread = {
            let server = Arc::clone(&server);
            let log = Arc::clone(&log);
            std::thread::spawn(move || {
                for request in server.incoming_requests() {
                    handle(request, &log);
                }
            })
        };
        Ok(Stub {
            server,
            addr,
            log,
            thread: Some(thread),
        })
    }

    /// The bound address (always `127.0.0.1:PORT`).
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The value for `ANTHROPIC_BASE_URL`.
    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Every request received so far, refused ones included.
    pub fn requests(&self) -> Vec<Recorded> {
        self.log.lock().map(|l| l.clone()).unwrap_or_default()
    }
}

impl Drop for Stub {
    fn drop(&mut self) {
        self.server.unblock();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn handle(mut request: Request, log: &Mutex<Vec<Recorded>>) {
    let headers: Vec<(String, String)> = request
        .headers()
        .iter()
        .map(|h| {
            (
                h.field.as_str().as_str().to_ascii_lowercase(),
                h.value.as_str().to_owned(),
            )
        })
        .collect();
    let refused = refusal(request.remote_addr(), &headers);
    let mut raw = Vec::new();
    if refused.is_none() {
        let _ = request
            .as_reader()
            .take(MAX_BODY_BYTES)
            .read_to_end(&mut raw);
    }
    let body = serde_json::from_slice(&raw).unwrap_or(Value::Null);
    let method = request.method().as_str().to_owned();
    let record = Recorded {
        method,
        path: request.url().to_owned(),
        headers,
        body,
        refused,
    };
    let response = answer(&record);
    if let Ok(mut l) = log.lock() {
        l.push(record);
    }
    let _ = request.respond(response);
}

/// Why a request must be refused: a non-loopback peer, or a `Host` that is not loopback
/// (which is what a DNS-rebinding page in a browser would send).
fn refusal(peer: Option<&SocketAddr>, headers: &[(String, String)]) -> Option<String> {
    match peer {
        Some(p) if p.ip().is_loopback() => {}
        Some(p) => return Some(format!("peer {p} is not loopback")),
        None => return Some("peer address unknown".into()),
    }
    let host = headers.iter().find(|(k, _)| k == "host").map(|(_, v)| v);
    match host {
        Some(h) if is_loopback_host(h) => None,
        Some(h) => Some(format!("Host {h:?} is not loopback")),
        None => Some("no Host header".into()),
    }
}

/// `127.0.0.1`, `localhost`, `[::1]`, each with an optional port.
fn is_loopback_host(host: &str) -> bool {
    let name = if let Some(rest) = host.strip_prefix('[') {
        rest.split(']').next().unwrap_or("")
    } else {
        host.rsplit_once(':').map_or(host, |(n, _)| n)
    };
    name.eq_ignore_ascii_case("localhost")
        || name.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

fn answer(r: &Recorded) -> Response<std::io::Cursor<Vec<u8>>> {
    if r.refused.is_some() {
        return Response::from_string("refused: ccmem verify serves loopback only")
            .with_status_code(403);
    }
    let model = r.body.get("model").and_then(Value::as_str).unwrap_or("x");
    let (kind, data) = match (r.method.as_str(), r.body.get("stream")) {
        ("POST", Some(Value::Bool(true))) => ("text/event-stream", sse(model)),
        ("POST", _) => ("application/json", message(model).to_string()),
        _ => ("application/json", "{}".to_owned()),
    };
    Response::from_data(data.into_bytes()).with_header(content_type(kind))
}

fn content_type(value: &str) -> Header {
    Header::from_bytes("content-type", value).expect("static header is valid")
}

/// The non-streaming answer: one assistant message saying `ok`.
pub fn message(model: &str) -> Value {
    json!({"id": "m", "type": "message", "role": "assistant", "model": model,
           "content": [{"type": "text", "text": "ok"}], "stop_reason": "end_turn",
           "stop_sequence": null, "usage": {"input_tokens": 1, "output_tokens": 1}})
}

/// The streaming answer: the same message as server-sent events.
pub fn sse(model: &str) -> String {
    let events = [
        json!({"type": "message_start", "message": {"id": "m", "type": "message", "role": "assistant",
               "model": model, "content": [], "stop_reason": null, "stop_sequence": null,
               "usage": {"input_tokens": 1, "output_tokens": 1}}}),
        json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
        json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "ok"}}),
        json!({"type": "content_block_stop", "index": 0}),
        json!({"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence": null},
               "usage": {"output_tokens": 1}}),
        json!({"type": "message_stop"}),
    ];
    events
        .iter()
        .map(|e| format!("event: {}\ndata: {e}\n\n", e["type"].as_str().unwrap_or("")))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_hosts() {
        for h in [
            "127.0.0.1:80",
            "localhost",
            "LOCALHOST:1",
            "[::1]:9",
            "127.3.4.5",
        ] {
            assert!(is_loopback_host(h), "{h}");
        }
        for h in [
            "example.com",
            "10.0.0.1:80",
            "127.0.0.1.evil.com",
            "[2001:db8::1]:80",
            "",
        ] {
            assert!(!is_loopback_host(h), "{h}");
        }
    }

    #[test]
    fn refuses_foreign_host_and_peer() {
        let lo: SocketAddr = "127.0.0.1:5".parse().unwrap();
        let far: SocketAddr = "192.0.2.1:5".parse().unwrap();
        let host = |h: &str| vec![("host".to_owned(), h.to_owned())];
        assert_eq!(refusal(Some(&lo), &host("127.0.0.1:1")), None);
        assert!(refusal(Some(&lo), &host("evil.example")).is_some());
        assert!(refusal(Some(&far), &host("127.0.0.1")).is_some());
        assert!(refusal(Some(&lo), &[]).is_some());
    }

    #[test]
    fn sse_is_a_complete_stream() {
        let text = sse("m1");
        let names: Vec<&str> = text
            .lines()
            .filter_map(|l| l.strip_prefix("event: "))
            .collect();
        assert_eq!(
            names,
            [
                "message_start",
                "content_block_start",
                "content_block_delta",
                "content_block_stop",
                "message_delta",
                "message_stop"
            ]
        );
        for data in text.lines().filter_map(|l| l.strip_prefix("data: ")) {
            let v: Value = serde_json::from_str(data).unwrap();
            assert!(v.get("type").is_some());
        }
        assert!(text.contains("\"model\":\"m1\""));
        assert!(text.ends_with("\n\n"));
    }

    /// Sends one raw HTTP/1.1 request and returns the whole response.
    fn send(stub: &Stub, host: &str, method: &str, body: &str) -> String {
        use std::io::Write;
        let mut conn = std::net::TcpStream::connect(stub.addr()).unwrap();
        write!(
            conn,
            "{method} /v1/messages?beta=true HTTP/1.1\r\nHost: {host}\r\nx-api-key: k\r\n\
             Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        )
        .unwrap();
        let mut out = String::new();
        conn.read_to_string(&mut out).unwrap();
        out
    }

    #[test]
    fn serves_streaming_and_plain_shapes_over_http() {
        let stub = Stub::start().unwrap();
        assert!(stub.addr().ip().is_loopback());
        assert!(stub.base_url().starts_with("http://127.0.0.1:"));
        let host = stub.addr().to_string();
        let msgs = r#""messages":[{"role":"user","content":"hi"}]"#;

        let streamed = send(
            &stub,
            &host,
            "POST",
            &format!(r#"{{"model":"m9","stream":true,{msgs}}}"#),
        );
        assert!(streamed.starts_with("HTTP/1.1 200"), "{streamed}");
        assert!(
            streamed
                .to_ascii_lowercase()
                .contains("content-type: text/event-stream")
        );
        assert!(streamed.contains("event: message_stop") && streamed.contains("\"model\":\"m9\""));

        let plain = send(&stub, &host, "POST", &format!(r#"{{"model":"m8",{msgs}}}"#));
        let body = plain.split("\r\n\r\n").nth(1).unwrap();
        let v: Value = serde_json::from_str(body).unwrap();
        assert_eq!(v["content"][0]["text"], "ok");
        assert_eq!(v["model"], "m8");

        let get = send(&stub, &host, "GET", "");
        assert!(
            get.starts_with("HTTP/1.1 200") && get.ends_with("{}"),
            "{get}"
        );

        let log = stub.requests();
        assert_eq!(log.len(), 3);
        assert!(
            log[0].is_messages_call() && log[1].is_messages_call() && !log[2].is_messages_call()
        );
        assert_eq!(log[0].header("X-API-KEY"), Some("k"));
        assert_eq!(log[0].path, "/v1/messages?beta=true");
    }

    #[test]
    fn refuses_a_foreign_host_header_over_http() {
        let stub = Stub::start().unwrap();
        let reply = send(
            &stub,
            "attacker.example",
            "POST",
            r#"{"messages":[{"role":"user","content":"x"}]}"#,
        );
        assert!(reply.starts_with("HTTP/1.1 403"), "{reply}");
        let log = stub.requests();
        assert_eq!(log.len(), 1);
        assert!(log[0].refused.is_some());
        assert!(
            !log[0].is_messages_call(),
            "a refused request never counts as captured"
        );
        assert_eq!(log[0].body, Value::Null, "a refused body is not read");
    }
}
