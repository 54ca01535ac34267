//! Dossier's local model worker: one llama.cpp model in a process of its own.
//!
//! llama.cpp ends the whole process on a failed assertion (`abort()`), and an out-of-memory kill
//! or a driver crash cannot be caught either; in a process of its own such a failure ends only the
//! worker, and the app turns it into a typed error. Killing the process is also the quickest Stop,
//! and exiting gives every byte of the model's memory back to the system.
//!
//! The conversation is JSON lines: requests on stdin (`protocol::Request`), events on stdout
//! (`protocol::Event`); llama.cpp's own log goes to stderr. The worker exits when stdin closes, so
//! it never outlives the app that started it.

mod bench;
mod cpu_support;
mod engine;
mod protocol;

use std::io::{BufRead, Write};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};

use llama_cpp_2::llama_backend::LlamaBackend;

use protocol::{ErrorKind, Event, Request};

fn send(event: &Event) {
    let Ok(line) = serde_json::to_string(event) else {
        return;
    };
    let mut stdout = std::io::stdout().lock();
    // A closed stdout means the app is gone; the stdin reader ends the process when it notices.
    let _ = writeln!(stdout, "{line}").and_then(|()| stdout.flush());
}

fn send_error(id: Option<String>, kind: ErrorKind, message: impl Into<String>) {
    send(&Event::Error {
        id,
        kind,
        message: message.into(),
    });
}

fn main() {
    if let Err(message) = cpu_support::check() {
        send_error(None, ErrorKind::UnsupportedProcessor, message);
        std::process::exit(3);
    }
    let physical_cores = cpu_support::physical_cores();
    let backend = match LlamaBackend::init() {
        Ok(backend) => backend,
        Err(error) => {
            send_error(
                None,
                ErrorKind::LoadFailed,
                format!("llama.cpp could not start: {error}"),
            );
            std::process::exit(4);
        }
    };

    let arguments: Vec<String> = std::env::args().skip(1).collect();
    if !arguments.is_empty() {
        // `--bench MODEL …`: the speed measure, not the JSON-lines worker.
        let outcome = bench::BenchOptions::parse(&arguments, physical_cores)
            .and_then(|options| bench::run(&backend, &options));
        match outcome {
            Ok(line) => println!("{line}"),
            Err(message) => {
                eprintln!("dossier-local-model-worker: {message}");
                std::process::exit(2);
            }
        }
        return;
    }

    // Requests are read on a thread of their own so that a cancel arrives while a reply is being
    // generated on the main thread.
    let cancelled = Arc::new(AtomicBool::new(false));
    let (requests, incoming) = mpsc::channel::<Request>();
    {
        let cancelled = Arc::clone(&cancelled);
        std::thread::spawn(move || {
            for line in std::io::stdin().lock().lines() {
                let Ok(line) = line else { break };
                if line.trim().is_empty() {
                    continue;
                }
                match serde_json::from_str::<Request>(&line) {
                    Ok(Request::Cancel) => cancelled.store(true, Ordering::SeqCst),
                    Ok(request) => {
                        if requests.send(request).is_err() {
                            break;
                        }
                    }
                    Err(error) => send_error(
                        None,
                        ErrorKind::BadRequest,
                        format!("Not a request the worker understands: {error}"),
                    ),
                }
            }
            // Stdin closed: the app has gone or let the worker go. Exit at once, even mid-reply.
            std::process::exit(0);
        });
    }

    send(&Event::Ready {
        simd: cpu_support::built_with(),
        physical_cores,
    });
    let mut loaded: Option<engine::LoadedModel> = None;
    while let Ok(request) = incoming.recv() {
        match request {
            Request::Load {
                path,
                context_length,
                memory_budget_bytes,
                threads,
            } => {
                // The old model goes first so two never share the memory.
                loaded = None;
                let options = engine::LoadOptions {
                    context_length,
                    memory_budget_bytes,
                    threads: threads.filter(|&count| count > 0).unwrap_or(physical_cores),
                };
                match engine::load(&backend, Path::new(&path), &options) {
                    Ok(model) => {
                        send(&Event::Loaded {
                            context_length: model.context_length,
                            train_context_length: model.train_context_length,
                            threads: model.threads,
                            model_bytes: model.model_bytes(),
                            parameters: model.parameters(),
                            chat_template_supports_tools: model.chat_template_supports_tools,
                        });
                        loaded = Some(model);
                    }
                    Err(failure) => send_error(None, failure.kind, failure.message),
                }
            }
            Request::Generate {
                id,
                messages,
                prompt,
                max_tokens,
                temperature,
                seed,
            } => {
                cancelled.store(false, Ordering::SeqCst);
                let Some(model) = loaded.as_ref() else {
                    send_error(
                        Some(id),
                        ErrorKind::NoModelLoaded,
                        "No model is loaded in the worker.",
                    );
                    continue;
                };
                let options = engine::GenerateOptions {
                    max_tokens,
                    temperature: temperature.unwrap_or(0.0),
                    seed: seed.unwrap_or(0),
                };
                let input = match prompt.as_deref() {
                    Some(prompt) => engine::Input::Prompt(prompt),
                    None => engine::Input::Messages(&messages),
                };
                let result =
                    engine::generate(&backend, model, input, &options, &cancelled, |text| {
                        send(&Event::Delta {
                            id: id.clone(),
                            text: text.to_owned(),
                        });
                    });
                match result {
                    Ok(outcome) => send(&Event::Done {
                        id,
                        prompt_tokens: outcome.prompt_tokens,
                        completion_tokens: outcome.completion_tokens,
                        stop_reason: outcome.stop_reason,
                    }),
                    Err(failure) => send_error(Some(id), failure.kind, failure.message),
                }
            }
            Request::Unload => {
                loaded = None;
                send(&Event::Unloaded);
            }
            // Handled on the reading thread.
            Request::Cancel => {}
        }
    }
}
