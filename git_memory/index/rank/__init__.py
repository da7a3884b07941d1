"""The index's ranking: candidates (`search`), stage two (`rerank`), semantic vectors."""
