//! A model file server that is a real HTTP/1.1 server on 127.0.0.1: it answers `GET` with the
//! file (200) or, for `Range: bytes=N-`, with the rest of it (206 and `Content-Range`), sending
//! 64 KiB at a time with an optional pause between pieces. Each request takes the next scripted
//! fault — drop the connection after some bytes, go silent after some bytes, answer a status —
//! and records the `Range` it asked for.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

#[derive(Debug, Clone, Copy)]
pub enum Fault {
    /// Sends this many bytes of the body, then closes the connection.
    CutAfter(usize),
    /// Sends this many bytes of the body, then sends nothing more (the connection stays open).
    SilentAfter(usize),
    /// Answers this status with an empty body.
    Status(u16),
}

#[derive(Clone)]
pub struct ModelServer {
    pub url: String,
    pub ranges: Arc<Mutex<Vec<Option<String>>>>,
    faults: Arc<Mutex<VecDeque<Fault>>>,
}

impl ModelServer {
    /// Serves `content` at every path, `pause` between 64 KiB pieces, with `faults` taken one
    /// per request (then none).
    pub async fn start(content: Vec<u8>, pause: Duration, faults: Vec<Fault>) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0")
            .await
            .unwrap_or_else(|error| panic!("{error}"));
        let address = listener
            .local_addr()
            .unwrap_or_else(|error| panic!("{error}"));
        let server = Self {
            url: format!("http://{address}"),
            ranges: Arc::new(Mutex::new(Vec::new())),
            faults: Arc::new(Mutex::new(faults.into())),
        };
        let content = Arc::new(content);
        let state = server.clone();
        tokio::spawn(async move {
            while let Ok((mut stream, _)) = listener.accept().await {
                let content = content.clone();
                let state = state.clone();
                tokio::spawn(async move {
                    let mut request = Vec::new();
                    let mut buffer = [0_u8; 4096];
                    while !request.windows(4).any(|window| window == b"\r\n\r\n") {
                        match stream.read(&mut buffer).await {
                            Ok(0) | Err(_) => return,
                            Ok(read) => request.extend_from_slice(&buffer[..read]),
                        }
                    }
                    let text = String::from_utf8_lossy(&request).to_string();
                    let range = text.lines().find_map(|line| {
                        let (name, value) = line.split_once(':')?;
                        name.eq_ignore_ascii_case("range")
                            .then(|| value.trim().to_string())
                    });
                    state
                        .ranges
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .push(range.clone());
                    let fault = state
                        .faults
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .pop_front();
                    if let Some(Fault::Status(status)) = fault {
                        let head = format!("HTTP/1.1 {status} Scripted\r\ncontent-length: 0\r\nconnection: close\r\n\r\n");
                        stream.write_all(head.as_bytes()).await.ok();
                        return;
                    }
                    let start: usize = range
                        .as_deref()
                        .and_then(|range| range.strip_prefix("bytes="))
                        .and_then(|range| range.trim_end_matches('-').parse().ok())
                        .unwrap_or(0);
                    let total = content.len();
                    let head = if range.is_some() {
                        format!("HTTP/1.1 206 Partial Content\r\ncontent-length: {}\r\ncontent-range: bytes {start}-{}/{total}\r\nconnection: close\r\n\r\n", total - start, total - 1)
                    } else {
                        format!("HTTP/1.1 200 OK\r\ncontent-length: {total}\r\nconnection: close\r\n\r\n")
                    };
                    if stream.write_all(head.as_bytes()).await.is_err() {
                        return;
                    }
                    let body = &content[start..];
                    let limit = match fault {
                        Some(Fault::CutAfter(bytes) | Fault::SilentAfter(bytes)) => {
                            bytes.min(body.len())
                        }
                        _ => body.len(),
                    };
                    for piece in body[..limit].chunks(64 * 1024) {
                        if stream.write_all(piece).await.is_err() {
                            return;
                        }
                        if !pause.is_zero() {
                            tokio::time::sleep(pause).await;
                        }
                    }
                    if let Some(Fault::SilentAfter(_)) = fault {
                        // Hold the connection open, sending nothing, until the client leaves.
                        let mut rest = [0_u8; 16];
                        while let Ok(read) = stream.read(&mut rest).await {
                            if read == 0 {
                                break;
                            }
                        }
                    }
                    stream.flush().await.ok();
                });
            }
        });
        server
    }

    pub fn ranges(&self) -> Vec<Option<String>> {
        self.ranges
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }
}
