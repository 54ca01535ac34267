//! `dossier-local-model-worker --bench MODEL`: llama-bench's two figures through this worker's own
//! build of llama.cpp, for `scripts/bench-local-model.sh`, which runs llama.cpp's `llama-bench`
//! beside it. The same measure as llama-bench: prompt processing of P tokens in one batch
//! (`pp512`) and generation of N tokens one at a time (`tg128`), random tokens, an empty cache
//! before each run, one warm-up run, then the mean of the repetitions in tokens per second.

use std::num::NonZeroU32;
use std::time::Instant;

use llama_cpp_2::context::params::LlamaContextParams;
use llama_cpp_2::context::LlamaContext;
use llama_cpp_2::llama_backend::LlamaBackend;
use llama_cpp_2::llama_batch::LlamaBatch;
use llama_cpp_2::model::params::LlamaModelParams;
use llama_cpp_2::model::LlamaModel;
use llama_cpp_2::token::LlamaToken;

pub struct BenchOptions {
    pub model: String,
    pub threads: u32,
    pub prompt: u32,
    pub generate: u32,
    pub repetitions: u32,
}

impl BenchOptions {
    /// `--bench MODEL [--threads N] [--prompt P] [--generate N] [--repetitions R]`.
    pub fn parse(arguments: &[String], physical_cores: u32) -> Result<Self, String> {
        let mut options = Self {
            model: String::new(),
            threads: physical_cores,
            prompt: 512,
            generate: 128,
            repetitions: 5,
        };
        let mut arguments = arguments.iter();
        while let Some(flag) = arguments.next() {
            let mut number = || -> Result<u32, String> {
                arguments
                    .next()
                    .and_then(|value| value.parse().ok())
                    .ok_or_else(|| format!("{flag} needs a number"))
            };
            match flag.as_str() {
                "--bench" => {
                    options.model = arguments
                        .next()
                        .cloned()
                        .ok_or("--bench needs a model file")?
                }
                "--threads" => options.threads = number()?,
                "--prompt" => options.prompt = number()?,
                "--generate" => options.generate = number()?,
                "--repetitions" => options.repetitions = number()?.max(1),
                other => return Err(format!("unknown argument {other}")),
            }
        }
        if options.model.is_empty() {
            return Err("--bench needs a model file".into());
        }
        Ok(options)
    }
}

/// A small deterministic generator for the random tokens (llama-bench draws them too).
struct Tokens {
    state: u64,
    vocabulary: u64,
}

impl Tokens {
    fn next(&mut self) -> LlamaToken {
        self.state = self
            .state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        LlamaToken::new(i32::try_from((self.state >> 33) % self.vocabulary).unwrap_or(0))
    }
}

pub fn run(backend: &LlamaBackend, options: &BenchOptions) -> Result<String, String> {
    let model = LlamaModel::load_from_file(backend, &options.model, &LlamaModelParams::default())
        .map_err(|error| format!("cannot load {}: {error}", options.model))?;
    let threads = i32::try_from(options.threads).unwrap_or(1);
    let params = LlamaContextParams::default()
        .with_n_ctx(NonZeroU32::new(options.prompt + options.generate))
        .with_n_batch(options.prompt.max(1))
        .with_n_ubatch(options.prompt.clamp(1, 512))
        .with_n_threads(threads)
        .with_n_threads_batch(threads);
    let mut context = model
        .new_context(backend, params)
        .map_err(|error| error.to_string())?;
    let mut tokens = Tokens {
        state: 42,
        vocabulary: u64::try_from(model.n_vocab()).unwrap_or(1).max(1),
    };
    let bos = model.vocab().bos();

    let mut prompt_rates = Vec::new();
    let mut generate_rates = Vec::new();
    // One warm-up run of each, not counted.
    for run in 0..=options.repetitions {
        context.clear_kv_cache();
        let seconds = prompt_run(&mut context, options.prompt, bos, &mut tokens)?;
        if run > 0 {
            prompt_rates.push(f64::from(options.prompt) / seconds);
        }
        context.clear_kv_cache();
        let seconds = generate_run(&mut context, options.generate, bos, &mut tokens)?;
        if run > 0 {
            generate_rates.push(f64::from(options.generate) / seconds);
        }
    }
    let (prompt_mean, prompt_deviation) = mean_and_deviation(&prompt_rates);
    let (generate_mean, generate_deviation) = mean_and_deviation(&generate_rates);
    Ok(format!(
        "{{\"model\":{:?},\"threads\":{},\"simd\":{:?},\"pp\":{},\"pp_tokens_per_second\":{prompt_mean:.2},\"pp_deviation\":{prompt_deviation:.2},\"tg\":{},\"tg_tokens_per_second\":{generate_mean:.2},\"tg_deviation\":{generate_deviation:.2}}}",
        options.model,
        options.threads,
        crate::cpu_support::built_with().join(","),
        options.prompt,
        options.generate,
    ))
}

fn prompt_run(
    context: &mut LlamaContext<'_>,
    count: u32,
    bos: LlamaToken,
    tokens: &mut Tokens,
) -> Result<f64, String> {
    let mut batch = LlamaBatch::new(count as usize, 1);
    for position in 0..count {
        let token = if position == 0 { bos } else { tokens.next() };
        let position = i32::try_from(position).unwrap_or(i32::MAX);
        batch
            .add(
                token,
                position,
                &[0],
                position + 1 == i32::try_from(count).unwrap_or(i32::MAX),
            )
            .map_err(|error| error.to_string())?;
    }
    let started = Instant::now();
    context
        .decode(&mut batch)
        .map_err(|error| error.to_string())?;
    context.synchronize();
    Ok(started.elapsed().as_secs_f64())
}

fn generate_run(
    context: &mut LlamaContext<'_>,
    count: u32,
    bos: LlamaToken,
    tokens: &mut Tokens,
) -> Result<f64, String> {
    let mut batch = LlamaBatch::new(1, 1);
    let mut token = bos;
    let started = Instant::now();
    for position in 0..count {
        batch.clear();
        batch
            .add(
                token,
                i32::try_from(position).unwrap_or(i32::MAX),
                &[0],
                true,
            )
            .map_err(|error| error.to_string())?;
        context
            .decode(&mut batch)
            .map_err(|error| error.to_string())?;
        context.synchronize();
        token = tokens.next();
    }
    Ok(started.elapsed().as_secs_f64())
}

fn mean_and_deviation(values: &[f64]) -> (f64, f64) {
    if values.is_empty() {
        return (0.0, 0.0);
    }
    let count = values.len() as f64;
    let mean = values.iter().sum::<f64>() / count;
    let variance = values
        .iter()
        .map(|value| (value - mean).powi(2))
        .sum::<f64>()
        / (count - 1.0).max(1.0);
    (mean, variance.sqrt())
}
