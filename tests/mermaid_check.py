"""A parser-level check of the Mermaid `graph LR` subset `graph.render.to_mermaid` writes.

The Mermaid CLI needs a browser, so the tests check the grammar of what we emit instead:
a `graph LR` header, then node definitions (an id, one of four shapes, a double-quoted
label holding no quote, line break or unescaped markup), links between defined nodes with
a known arrow and a plain label, `classDef` and `class` lines, and `%%` comments.
"""

from __future__ import annotations

import re

_ID = r"n\d+"
_SHAPES = [(r'\["', r'"\]'), (r'\[/"', r'"/\]'), (r'\{\{"', r'"\}\}'), (r'\(\("', r'"\)\)')]
_LABEL = r'[^"\n\r`<>\\]*'  # what may stand between the quotes (entities are `#nn;`)
NODE = re.compile(rf"^  ({_ID})(?:{'|'.join(o + _LABEL + c for o, c in _SHAPES)})$")
LINK = re.compile(rf"^  ({_ID}) (?:-->|==>|-\.->|---)(?:\|[a-z_]+(?: x\d+)?\|)? ({_ID})$")
CLASSDEF = re.compile(r"^  classDef [a-z_]+ [^;\n]+$")
CLASS = re.compile(rf"^  class {_ID}(?:,{_ID})* [a-z_]+$")
COMMENT = re.compile(r"^  %% [^\n]*$")


def check_mermaid(text: str) -> None:
    """Raise AssertionError naming the first line that is not valid in our subset."""
    lines = text.rstrip("\n").split("\n")
    assert lines[0] == "graph LR", f"header: {lines[0]!r}"
    defined: set[str] = set()
    for number, line in enumerate(lines[1:], start=2):
        node = NODE.match(line)
        if node:
            assert node.group(1) not in defined, f"line {number}: {node.group(1)} defined twice"
            defined.add(node.group(1))
            for entity in re.findall(r"#[^;\s]*;?", line):
                assert re.fullmatch(r"#\d+;", entity), f"line {number}: bad entity {entity!r}"
            continue
        link = LINK.match(line)
        if link:
            assert {link.group(1), link.group(2)} <= defined, f"line {number}: unknown node"
            continue
        classes = CLASS.match(line)
        if classes:
            for name in re.findall(_ID, line):
                assert name in defined, f"line {number}: class of unknown node {name}"
            continue
        assert CLASSDEF.match(line) or COMMENT.match(line), f"line {number}: {line!r}"
