"""Embedders: text -> vectors by meaning, for recall's first stage (docs/recall.md).

`base` (the `Embedder` Protocol), `registry` (which embedder this repository uses), `bert`
(a sentence-transformers BERT encoder in numpy). numpy and tokenizers are loaded only when an
embedder is loaded, never by keyword-only recall.
"""
