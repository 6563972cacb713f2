"""Measure `gmtags prompt --tokens`' estimate against real tokenizers (gmtags/prompt/tokens.py).

    python scripts/token_calibration.py [--text FILE ...] [--hf NAME=tokenizer.json ...]

Prose (README, docs/, and shared/*.md beside the repo when there) is cut into
3,000-character chunks; the GM prompts are the golden files under
fixtures/prompts. For every tokenizer it can load offline it prints the range
of estimate / real count over the prose and over the prompts, and the `SCALE`
that would centre the prose, so the constant is refitted from data, never
guessed. Tokenizers: Tekken and Mistral's SentencePiece models (mistral-common,
sentencepiece), tiktoken's cl100k_base and o200k_base when their files are in
TIKTOKEN_CACHE_DIR (tiktoken downloads them otherwise, which a machine without
that host cannot), and any Hugging Face `tokenizer.json` given with --hf.
"""

from __future__ import annotations

import argparse
import pathlib
import sys
from collections.abc import Callable

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from gmtags.prompt.tokens import SCALE, estimate_tokens  # noqa: E402
from gmtags.testing import read_cases  # noqa: E402

Count = Callable[[str], int]


def _tokenizers(hf: list[str]) -> dict[str, Count]:
    found: dict[str, Count] = {}
    try:
        import mistral_common
        from mistral_common.tokens.tokenizers.tekken import Tekkenizer

        data = pathlib.Path(mistral_common.__file__).parent / "data"
        tekken = Tekkenizer.from_file(sorted(data.glob("tekken_*.json"))[-1])
        found["tekken"] = lambda t: len(tekken.encode(t, bos=False, eos=False))
        from mistral_common.tokens.tokenizers.sentencepiece import SentencePieceTokenizer

        spm = SentencePieceTokenizer(str(sorted(data.glob("mistral_instruct_tokenizer_*"))[-1]))
        found["mistral-spm"] = lambda t: len(spm.encode(t, bos=False, eos=False))
    except Exception as error:  # an optional tokenizer that is not installed
        print(f"(mistral-common: {type(error).__name__})", file=sys.stderr)
    try:
        import tiktoken

        for name in ("cl100k_base", "o200k_base"):
            encoding = tiktoken.get_encoding(name)
            found[name] = lambda t, e=encoding: len(e.encode(t, disallowed_special=()))
    except Exception as error:
        print(f"(tiktoken: {type(error).__name__})", file=sys.stderr)
    for spec in hf:
        from tokenizers import Tokenizer

        name, _, path = spec.partition("=")
        tokenizer = Tokenizer.from_file(path)
        found[name] = lambda t, k=tokenizer: len(k.encode(t, add_special_tokens=False).ids)
    return found


def _chunks(text: str, size: int = 3000) -> list[str]:
    out, start = [], 0
    while start < len(text):
        end = min(len(text), start + size)
        cut = text.rfind("\n", start, end) if end < len(text) else end
        end = cut if cut > start else end
        out.append(text[start:end])
        start = end
    return [chunk for chunk in out if len(chunk) > 500]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--text", action="append", default=[], help="more prose to measure")
    parser.add_argument("--hf", action="append", default=[], help="NAME=path/tokenizer.json")
    args = parser.parse_args()
    prose_files = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    prose_files += sorted((ROOT.parent / "shared").glob("*.md")) + [
        pathlib.Path(p) for p in args.text
    ]
    prose = [c for f in prose_files if f.is_file() for c in _chunks(f.read_text("utf-8"))]
    prompts = [
        f"{case.sections['system']}\n{case.sections['reminder']}"
        for path in sorted((ROOT / "fixtures" / "prompts").rglob("*.md"))
        for case in read_cases(path)
    ]
    tokenizers = _tokenizers(args.hf)
    print(f"SCALE = {SCALE}; {len(prose)} prose chunks, {len(prompts)} prompts")
    for name, count in tokenizers.items():
        on_prose = [estimate_tokens(t) / count(t) for t in prose]
        on_prompts = [estimate_tokens(t) / count(t) for t in prompts]
        low, high = min(on_prose), max(on_prose)
        centred = SCALE * 2 / (low + high)
        print(
            f"{name:14} prose {low:.3f}..{high:.3f}  prompts "
            f"{min(on_prompts):.3f}..{max(on_prompts):.3f}  (prose centred by SCALE={centred:.3f})"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
