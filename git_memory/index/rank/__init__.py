"""The index's ranking: candidates (`search`), stage two (`rerank`) over `hits`, the
search text (`tokens`), semantic vectors (`semantic`, its tokenizer `semantic_bpe`)."""
