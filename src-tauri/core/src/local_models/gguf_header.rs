//! Reads a GGUF file's header in pure Rust — magic, version, architecture, context length and
//! the size facts — without the engine, so a file can be checked before it is added or loaded.
//! Only the header's key/value section is read (tokenizer arrays are skipped, never held), and
//! every length is checked against what the file still holds, so a damaged file ends in a typed
//! error rather than a huge allocation.

use crate::local_models::local_model_error::LocalModelError;
use serde::Serialize;
use std::io::{BufReader, Read, Seek, SeekFrom};
use std::path::Path;
use ts_rs::TS;

const MAGIC: &[u8; 4] = b"GGUF";
/// The vocabulary: one string per token id.
const VOCABULARY: &str = "tokenizer.ggml.tokens";
/// A key or string longer than this is a damaged file, not a header (chat templates are the
/// longest real strings, tens of kilobytes).
const LONGEST_STRING: u64 = 16 * 1024 * 1024;

/// The architectures llama.cpp knows (`llm_arch` names in its `llama-arch.cpp`). A file naming
/// another one is refused before the engine is asked to load it.
pub const KNOWN_ARCHITECTURES: &[&str] = &[
    "llama",
    "llama4",
    "deci",
    "falcon",
    "falcon-h1",
    "grok",
    "gpt2",
    "gptj",
    "gptneox",
    "mpt",
    "baichuan",
    "starcoder",
    "starcoder2",
    "refact",
    "bert",
    "nomic-bert",
    "nomic-bert-moe",
    "neo-bert",
    "jina-bert-v2",
    "bloom",
    "stablelm",
    "qwen",
    "qwen2",
    "qwen2moe",
    "qwen2vl",
    "qwen3",
    "qwen3moe",
    "phi2",
    "phi3",
    "phimoe",
    "plamo",
    "plamo2",
    "codeshell",
    "orion",
    "internlm2",
    "minicpm",
    "minicpm3",
    "gemma",
    "gemma2",
    "gemma3",
    "gemma3n",
    "gemma-embedding",
    "mamba",
    "mamba2",
    "jamba",
    "xverse",
    "command-r",
    "cohere2",
    "dbrx",
    "olmo",
    "olmo2",
    "olmoe",
    "openelm",
    "arctic",
    "deepseek",
    "deepseek2",
    "chatglm",
    "glm4",
    "glm4moe",
    "bitnet",
    "t5",
    "t5encoder",
    "jais",
    "nemotron",
    "nemotron_h",
    "exaone",
    "exaone4",
    "rwkv6",
    "rwkv6qwen2",
    "rwkv7",
    "arwkv7",
    "granite",
    "granitemoe",
    "granitehybrid",
    "chameleon",
    "plm",
    "bailingmoe",
    "bailingmoe2",
    "dots1",
    "arcee",
    "ernie4_5",
    "ernie4_5-moe",
    "hunyuan-moe",
    "hunyuan-dense",
    "smollm3",
    "gpt-oss",
    "lfm2",
    "smallthinker",
    "seed_oss",
    "apertus",
    "mistral3",
];

/// What the header says about a model.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[ts(export)]
#[serde(rename_all = "camelCase")]
pub struct GgufHeader {
    pub version: u32,
    pub architecture: String,
    /// `general.name`, when the file has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub name: Option<String>,
    /// `<architecture>.context_length`: the longest context the model was trained for.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional, type = "number")]
    pub context_length: Option<u64>,
    /// `general.size_label` ("1.5B"), when the file has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub size_label: Option<String>,
    /// `general.parameter_count`, when the file has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional, type = "number")]
    pub parameter_count: Option<u64>,
    /// The quantisation named from `general.file_type` ("Q4_K_M").
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub quantization: Option<String>,
    #[ts(type = "number")]
    pub tensor_count: u64,
    /// Whether the file carries a chat template (`tokenizer.chat_template`).
    pub has_chat_template: bool,
    #[ts(type = "number")]
    pub file_bytes: u64,
}

/// The chat template a model file carries and the texts of its begin and end tokens, which
/// Hugging Face templates write as `bos_token` and `eos_token` (`local_models::chat_template`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TemplateFacts {
    pub chat_template: String,
    pub bos_token: String,
    pub eos_token: String,
}

/// The chat template of the file at `path`, `None` when it has none. The vocabulary is walked a
/// second time to name the begin and end tokens (only those two are kept).
pub fn read_template_facts(path: &Path) -> Result<Option<TemplateFacts>, LocalModelError> {
    Ok(open_reader(path)?.parse(true)?.1)
}

/// Reads and checks the header of the file at `path`; refuses a file whose architecture the
/// engine does not know.
pub fn read_gguf_header(path: &Path) -> Result<GgufHeader, LocalModelError> {
    let header = read_header_any_architecture(path)?;
    if !KNOWN_ARCHITECTURES.contains(&header.architecture.as_str()) {
        return Err(LocalModelError::UnknownArchitecture {
            path: path.display().to_string(),
            architecture: header.architecture,
        });
    }
    Ok(header)
}

/// The header as written, whatever its architecture.
pub fn read_header_any_architecture(path: &Path) -> Result<GgufHeader, LocalModelError> {
    Ok(open_reader(path)?.parse(false)?.0)
}

fn open_reader(path: &Path) -> Result<HeaderReader<'_, BufReader<std::fs::File>>, LocalModelError> {
    let file = std::fs::File::open(path).map_err(|error| LocalModelError::io(path, &error))?;
    let file_bytes = file
        .metadata()
        .map_err(|error| LocalModelError::io(path, &error))?
        .len();
    if file_bytes == 0 {
        return Err(LocalModelError::EmptyFile {
            path: path.display().to_string(),
        });
    }
    Ok(HeaderReader {
        input: BufReader::with_capacity(64 * 1024, file),
        position: 0,
        file_bytes,
        path,
    })
}

/// One value of the header, kept only for the keys that matter.
enum Value {
    Text(String),
    Number(u64),
    /// Where an array of strings starts (after its type and length) and how many it holds.
    Strings {
        start: u64,
        count: u64,
    },
    Other,
}

struct HeaderReader<'path, Input> {
    input: Input,
    position: u64,
    file_bytes: u64,
    path: &'path Path,
}

impl<Input: Read + Seek> HeaderReader<'_, Input> {
    /// The header, and with `template` the chat template and its begin and end tokens.
    fn parse(
        &mut self,
        template: bool,
    ) -> Result<(GgufHeader, Option<TemplateFacts>), LocalModelError> {
        let mut magic = [0_u8; 4];
        let available = self.file_bytes.min(4) as usize;
        self.bytes(&mut magic[..available], "the first four bytes")?;
        if available < 4 || &magic != MAGIC {
            return Err(LocalModelError::NotGguf {
                path: self.path.display().to_string(),
            });
        }
        let version = self.u32("the version")?;
        if !(1..=3).contains(&version) {
            return Err(self.unsupported(format!("format version {version}")));
        }
        // Version 1 counted with 32 bits; 2 and 3 with 64.
        let (tensor_count, entry_count) = if version == 1 {
            (
                u64::from(self.u32("the tensor count")?),
                u64::from(self.u32("the key count")?),
            )
        } else {
            (self.u64("the tensor count")?, self.u64("the key count")?)
        };
        let mut texts = std::collections::HashMap::new();
        let mut numbers = std::collections::HashMap::new();
        let mut has_chat_template = false;
        let mut vocabulary = None;
        for _ in 0..entry_count {
            let key = self.string(version, "a key")?;
            let value_type = self.u32("a value type")?;
            let wanted = key.starts_with("general.")
                || key.ends_with(".context_length")
                || (template && key == "tokenizer.chat_template");
            if key == "tokenizer.chat_template" {
                has_chat_template = true;
            }
            let wanted_strings = template && key == VOCABULARY;
            match self.value(version, value_type, wanted || wanted_strings)? {
                Value::Text(text) => {
                    texts.insert(key, text);
                }
                Value::Number(number) => {
                    numbers.insert(key, number);
                }
                Value::Strings { start, count } => vocabulary = Some((start, count)),
                Value::Other => {}
            }
        }
        let facts = match texts.remove("tokenizer.chat_template") {
            Some(chat_template) => {
                let bos = numbers.get("tokenizer.ggml.bos_token_id").copied();
                let eos = numbers.get("tokenizer.ggml.eos_token_id").copied();
                let [bos_token, eos_token] = match vocabulary {
                    Some(array) => self.tokens(version, array, [bos, eos])?,
                    None => Default::default(),
                };
                Some(TemplateFacts {
                    chat_template,
                    bos_token,
                    eos_token,
                })
            }
            None => None,
        };
        let Some(architecture) = texts.remove("general.architecture") else {
            return Err(self.unsupported("no general.architecture".into()));
        };
        let context_length = numbers
            .get(&format!("{architecture}.context_length"))
            .copied();
        let header = GgufHeader {
            version,
            name: texts.remove("general.name"),
            context_length,
            size_label: texts.remove("general.size_label"),
            parameter_count: numbers.get("general.parameter_count").copied(),
            quantization: numbers
                .get("general.file_type")
                .and_then(|file_type| quantization_name(*file_type))
                .map(str::to_string),
            tensor_count,
            has_chat_template,
            file_bytes: self.file_bytes,
            architecture,
        };
        Ok((header, facts))
    }

    fn value(
        &mut self,
        version: u32,
        value_type: u32,
        wanted: bool,
    ) -> Result<Value, LocalModelError> {
        Ok(match value_type {
            0 | 1 | 7 => Value::Number(u64::from(self.fixed::<1>("a value")?[0])),
            2 | 3 => Value::Number(u64::from(u16::from_le_bytes(self.fixed("a value")?))),
            4 => Value::Number(u64::from(self.u32("a value")?)),
            5 | 6 => {
                self.fixed::<4>("a value")?;
                Value::Other
            }
            10 => Value::Number(self.u64("a value")?),
            11 | 12 => {
                self.fixed::<8>("a value")?;
                Value::Other
            }
            8 if wanted => Value::Text(self.string(version, "a text value")?),
            8 => {
                let length = self.length(version, "a text value")?;
                self.skip(length, "a text value")?;
                Value::Other
            }
            9 => {
                let item_type = self.u32("an array's type")?;
                let count = self.length(version, "an array's length")?;
                match fixed_width(item_type) {
                    Some(width) => {
                        let bytes = count.checked_mul(width).ok_or_else(|| {
                            self.unsupported(format!("an array of {count} items"))
                        })?;
                        self.skip(bytes, "an array")?;
                    }
                    None => {
                        // Strings (the tokenizer's vocabulary) or nested arrays: one by one.
                        if count > self.file_bytes {
                            return Err(self.truncated(format!(
                                "an array claims {count} items in a file of {} bytes",
                                self.file_bytes
                            )));
                        }
                        let start = self.position;
                        for _ in 0..count {
                            self.value(version, item_type, false)?;
                        }
                        if wanted && item_type == 8 {
                            return Ok(Value::Strings { start, count });
                        }
                    }
                }
                Value::Other
            }
            other => return Err(self.unsupported(format!("value type {other}"))),
        })
    }

    /// The texts of the tokens `ids` from the vocabulary array at `start` (empty for an id the
    /// file does not have), walking it again without keeping the others.
    fn tokens<const COUNT: usize>(
        &mut self,
        version: u32,
        (start, count): (u64, u64),
        ids: [Option<u64>; COUNT],
    ) -> Result<[String; COUNT], LocalModelError> {
        let mut found: [String; COUNT] = std::array::from_fn(|_| String::new());
        let Some(last) = ids
            .iter()
            .flatten()
            .copied()
            .max()
            .filter(|last| *last < count)
        else {
            return Ok(found);
        };
        self.input
            .seek(SeekFrom::Start(start))
            .map_err(|error| LocalModelError::io(self.path, &error))?;
        self.position = start;
        for id in 0..=last {
            if ids.contains(&Some(id)) {
                let text = self.string(version, "a token")?;
                for (slot, wanted) in found.iter_mut().zip(ids) {
                    if wanted == Some(id) {
                        *slot = text.clone();
                    }
                }
            } else {
                let length = self.length(version, "a token")?;
                self.skip(length, "a token")?;
            }
        }
        Ok(found)
    }

    fn string(&mut self, version: u32, what: &str) -> Result<String, LocalModelError> {
        let length = self.length(version, what)?;
        if length > LONGEST_STRING {
            return Err(self.unsupported(format!("{what} of {length} bytes")));
        }
        self.need(length, what)?;
        let mut bytes = vec![0_u8; length as usize];
        self.bytes(&mut bytes, what)?;
        Ok(String::from_utf8_lossy(&bytes).into_owned())
    }

    fn length(&mut self, version: u32, what: &str) -> Result<u64, LocalModelError> {
        if version == 1 {
            Ok(u64::from(self.u32(what)?))
        } else {
            self.u64(what)
        }
    }

    fn u32(&mut self, what: &str) -> Result<u32, LocalModelError> {
        Ok(u32::from_le_bytes(self.fixed(what)?))
    }

    fn u64(&mut self, what: &str) -> Result<u64, LocalModelError> {
        Ok(u64::from_le_bytes(self.fixed(what)?))
    }

    fn fixed<const WIDTH: usize>(&mut self, what: &str) -> Result<[u8; WIDTH], LocalModelError> {
        let mut bytes = [0_u8; WIDTH];
        self.bytes(&mut bytes, what)?;
        Ok(bytes)
    }

    fn need(&self, bytes: u64, what: &str) -> Result<(), LocalModelError> {
        if self.position.saturating_add(bytes) > self.file_bytes {
            return Err(self.truncated(format!(
                "the header ends at byte {} while reading {what}",
                self.file_bytes
            )));
        }
        Ok(())
    }

    fn bytes(&mut self, into: &mut [u8], what: &str) -> Result<(), LocalModelError> {
        self.need(into.len() as u64, what)?;
        self.input
            .read_exact(into)
            .map_err(|error| LocalModelError::io(self.path, &error))?;
        self.position += into.len() as u64;
        Ok(())
    }

    fn skip(&mut self, bytes: u64, what: &str) -> Result<(), LocalModelError> {
        self.need(bytes, what)?;
        // A short skip (one token of a vocabulary of 150,000) reads through the buffer: a seek
        // would throw the buffer away and ask the system each time.
        if bytes <= 4096 {
            let copied = std::io::copy(&mut (&mut self.input).take(bytes), &mut std::io::sink())
                .map_err(|error| LocalModelError::io(self.path, &error))?;
            if copied != bytes {
                return Err(self.truncated(format!("the file ends while skipping {what}")));
            }
            self.position += bytes;
            return Ok(());
        }
        let offset = i64::try_from(bytes).map_err(|_| self.unsupported(what.to_string()))?;
        self.input
            .seek(SeekFrom::Current(offset))
            .map_err(|error| LocalModelError::io(self.path, &error))?;
        self.position += bytes;
        Ok(())
    }

    fn truncated(&self, detail: String) -> LocalModelError {
        LocalModelError::Truncated {
            path: self.path.display().to_string(),
            detail,
        }
    }

    fn unsupported(&self, detail: String) -> LocalModelError {
        LocalModelError::UnsupportedGguf {
            path: self.path.display().to_string(),
            detail,
        }
    }
}

/// Bytes per item of a fixed-width value type; `None` for strings and arrays.
fn fixed_width(value_type: u32) -> Option<u64> {
    match value_type {
        0 | 1 | 7 => Some(1),
        2 | 3 => Some(2),
        4..=6 => Some(4),
        10..=12 => Some(8),
        _ => None,
    }
}

/// llama.cpp's `llama_ftype` numbers for the quantisations people meet.
fn quantization_name(file_type: u64) -> Option<&'static str> {
    Some(match file_type {
        0 => "F32",
        1 => "F16",
        2 => "Q4_0",
        3 => "Q4_1",
        7 => "Q8_0",
        8 => "Q5_0",
        9 => "Q5_1",
        10 => "Q2_K",
        11 => "Q3_K_S",
        12 => "Q3_K_M",
        13 => "Q3_K_L",
        14 => "Q4_K_S",
        15 => "Q4_K_M",
        16 => "Q5_K_S",
        17 => "Q5_K_M",
        18 => "Q6_K",
        32 => "BF16",
        _ => return None,
    })
}

#[cfg(test)]
mod tests;
