#!/usr/bin/env python3
"""A GGUF in Qwen2.5-0.5B-Instruct's exact shape with random weights, for the local model benchmark.

    python3 scripts/make-random-qwen-model.py LLAMA_CPP_TREE OUT.gguf

Issue 30 measures the worker beside llama-bench on a model of the size people actually run, and
Hugging Face is out of reach here. Speed depends on the shape (layers, widths, heads, vocabulary)
and the quantisation, not on what the weights say, so the weights are drawn at random (fixed seed)
and the tokenizer is llama.cpp's own Qwen2 vocabulary file (`models/ggml-vocab-qwen2.gguf` in the
llama.cpp tree, which carries Qwen2's 151,936 tokens and merges but no tensors). The result is
written in F16; `llama-quantize` then makes the Q4_K_M the benchmark uses. The model talks
nonsense, which no benchmark here looks at.

Needs numpy and llama.cpp's own `gguf` package (its `gguf-py` folder in the same tree).
"""

import sys
from pathlib import Path

# Qwen2.5-0.5B-Instruct's config.json (revision 7ae5578), as llama.cpp's converter maps it.
SHAPE = {
    "block_count": 24,
    "context_length": 32768,
    "embedding_length": 896,
    "feed_forward_length": 4864,
    "head_count": 14,
    "head_count_kv": 2,
    "rope_freq_base": 1_000_000.0,
    "rms_epsilon": 1e-6,
}


def main() -> None:
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    tree, output = Path(sys.argv[1]), Path(sys.argv[2])
    sys.path.insert(0, str(tree / "gguf-py"))
    import gguf
    import numpy

    vocabulary = gguf.GGUFReader(tree / "models" / "ggml-vocab-qwen2.gguf")
    tokens = [bytes(field) for field in _array(vocabulary, "tokenizer.ggml.tokens")]
    token_types = [int(value) for value in _array(vocabulary, "tokenizer.ggml.token_type")]
    merges = [bytes(field) for field in _array(vocabulary, "tokenizer.ggml.merges")]
    end_of_text = int(vocabulary.fields["tokenizer.ggml.eos_token_id"].contents())

    writer = gguf.GGUFWriter(str(output), "qwen2")
    writer.add_name("Random weights in Qwen2.5-0.5B-Instruct's shape")
    writer.add_block_count(SHAPE["block_count"])
    writer.add_context_length(SHAPE["context_length"])
    writer.add_embedding_length(SHAPE["embedding_length"])
    writer.add_feed_forward_length(SHAPE["feed_forward_length"])
    writer.add_head_count(SHAPE["head_count"])
    writer.add_head_count_kv(SHAPE["head_count_kv"])
    writer.add_rope_freq_base(SHAPE["rope_freq_base"])
    writer.add_layer_norm_rms_eps(SHAPE["rms_epsilon"])
    writer.add_file_type(gguf.LlamaFileType.MOSTLY_F16)
    writer.add_tokenizer_model("gpt2")
    writer.add_tokenizer_pre("qwen2")
    writer.add_token_list(tokens)
    writer.add_token_types(token_types)
    writer.add_token_merges(merges)
    writer.add_eos_token_id(end_of_text)
    writer.add_bos_token_id(end_of_text)
    writer.add_pad_token_id(end_of_text)
    writer.add_add_bos_token(False)
    writer.add_chat_template(
        "{% for message in messages %}<|im_start|>{{ message['role'] }}\n{{ message['content'] }}"
        "<|im_end|>\n{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
    )

    random = numpy.random.default_rng(30)
    width = SHAPE["embedding_length"]
    head_width = width // SHAPE["head_count"]
    key_value_width = head_width * SHAPE["head_count_kv"]
    feed_forward = SHAPE["feed_forward_length"]

    def matrix(rows: int, columns: int):
        return (random.standard_normal((rows, columns), dtype=numpy.float32) * 0.02).astype(
            numpy.float16
        )

    def vector(length: int, value: float | None = None):
        if value is not None:
            return numpy.full(length, value, dtype=numpy.float32)
        return random.standard_normal(length, dtype=numpy.float32) * 0.02

    # Qwen2.5-0.5B ties its output to the token embedding: no `output.weight`, as in the real file.
    writer.add_tensor("token_embd.weight", matrix(len(tokens), width))
    writer.add_tensor("output_norm.weight", vector(width, 1.0))
    for block in range(SHAPE["block_count"]):
        prefix = f"blk.{block}."
        writer.add_tensor(prefix + "attn_norm.weight", vector(width, 1.0))
        writer.add_tensor(prefix + "attn_q.weight", matrix(width, width))
        writer.add_tensor(prefix + "attn_q.bias", vector(width))
        writer.add_tensor(prefix + "attn_k.weight", matrix(key_value_width, width))
        writer.add_tensor(prefix + "attn_k.bias", vector(key_value_width))
        writer.add_tensor(prefix + "attn_v.weight", matrix(key_value_width, width))
        writer.add_tensor(prefix + "attn_v.bias", vector(key_value_width))
        writer.add_tensor(prefix + "attn_output.weight", matrix(width, width))
        writer.add_tensor(prefix + "ffn_norm.weight", vector(width, 1.0))
        writer.add_tensor(prefix + "ffn_gate.weight", matrix(feed_forward, width))
        writer.add_tensor(prefix + "ffn_up.weight", matrix(feed_forward, width))
        writer.add_tensor(prefix + "ffn_down.weight", matrix(width, feed_forward))

    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()


def _array(reader, key):
    """The values of an array field, as the reader keeps them (one memory view per element)."""
    field = reader.fields[key]
    return [field.parts[index] for index in field.data]


if __name__ == "__main__":
    main()
