#!/usr/bin/env python3
"""Builds Guess Picture's question packs (data/packs/zh.json, data/packs/en.json) from
Unicode CLDR, as shipped by Debian's unicode-cldr-core:

  answers     the emoji's text-to-speech name (annotations/zh.xml, en.xml, type="tts")
  categories  properties/labels.txt (e.g. "animal-mammal"), titled with the locale's
              characterLabel (main/zh.xml: 动物, main/en.xml: animal)
  pictures    single code points that Noto Color Emoji has a glyph for (read from its cmap)

Options are the answer's characters plus distractors drawn from other answers of the same
pack (same category first), so every option looks like it could belong.
Deterministic: the same inputs always give byte-identical packs.

usage: tools/make-packs.py [--cldr DIR] [--font FILE] [--out DIR]
"""
import argparse
import json
import random
import re
import struct
import sys
import xml.etree.ElementTree as ET

OPTION_COUNT = 21
# Moon phases and moon faces: their names (waxing crescent, 娥眉月...) are astronomy, not
# guessable from a small picture.
EXCLUDED = set(range(0x1F311, 0x1F31E))
MIN_QUESTIONS = 60
MAX_QUESTIONS = 120

# labels.txt second-level label prefix -> the characterLabel type used as the title.
CATEGORY_OF_SUBLABEL = [
    ("transport-sign", None),  # restroom and baggage signs: not pictures of things
    ("animal-", "animal"),
    ("plant-", "plant"),
    ("food-", "food_drink"),
    ("drink", "food_drink"),
    ("transport-", "travel"),
    ("place-building", "building"),
    ("place-religious", "building"),
    ("place-", "place"),
    ("sky & weather", "weather"),
    ("sport", "sport"),
    ("event", "activities"),
    ("game", "activities"),
    ("arts & crafts", "activities"),
    ("musical-instrument", "objects"),
    ("music", "objects"),
    ("household", "objects"),
    ("tool", "objects"),
    ("science", "objects"),
    ("writing", "objects"),
    ("office", "objects"),
    ("light & video", "objects"),
    ("computer", "objects"),
    ("phone", "objects"),
    ("book-paper", "objects"),
    ("mail", "objects"),
    ("money", "objects"),
]


def fail(message):
    print(f"make-packs: {message}", file=sys.stderr)
    sys.exit(1)


def font_code_points(path):
    """Every code point the font's cmap maps (formats 4 and 12)."""
    with open(path, "rb") as f:
        data = f.read()
    num_tables = struct.unpack_from(">H", data, 4)[0]
    cmap = None
    for i in range(num_tables):
        tag, _, offset, _ = struct.unpack_from(">4sIII", data, 12 + 16 * i)
        if tag == b"cmap":
            cmap = offset
    if cmap is None:
        fail(f"{path}: no cmap table")
    points = set()
    count = struct.unpack_from(">H", data, cmap + 2)[0]
    for i in range(count):
        _, _, sub = struct.unpack_from(">HHI", data, cmap + 4 + 8 * i)
        base = cmap + sub
        fmt = struct.unpack_from(">H", data, base)[0]
        if fmt == 12:
            groups = struct.unpack_from(">I", data, base + 12)[0]
            for g in range(groups):
                start, end, _ = struct.unpack_from(">III", data, base + 16 + 12 * g)
                points.update(range(start, end + 1))
        elif fmt == 4:
            segs = struct.unpack_from(">H", data, base + 6)[0] // 2
            ends = struct.unpack_from(f">{segs}H", data, base + 14)
            starts = struct.unpack_from(f">{segs}H", data, base + 16 + 2 * segs)
            for s, e in zip(starts, ends):
                if s != 0xFFFF:
                    points.update(range(s, e + 1))
    return points


def parse_unicode_set(text):
    """The subset of UnicodeSet syntax labels.txt uses: [a-bcd{seq}]; sequences skipped."""
    body = text.strip()[1:-1]
    body = re.sub(r"\{[^}]*\}", "", body)
    chars = list(body)
    points = []
    i = 0
    while i < len(chars):
        if i + 2 < len(chars) and chars[i + 1] == "-":
            points.extend(range(ord(chars[i]), ord(chars[i + 2]) + 1))
            i += 3
        else:
            points.append(ord(chars[i]))
            i += 1
    return points


def categories(cldr):
    """code point -> characterLabel type, from labels.txt's second-level labels."""
    result = {}
    with open(f"{cldr}/properties/labels.txt", encoding="utf-8") as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            fields = [x.strip() for x in line.split(";")]
            if len(fields) < 3:
                continue
            category = next((c for prefix, c in CATEGORY_OF_SUBLABEL if fields[2].startswith(prefix)), None)
            if category is None:
                continue
            for cp in parse_unicode_set(fields[0]):
                result.setdefault(cp, category)
    return result


def character_labels(cldr, locale):
    root = ET.parse(f"{cldr}/main/{locale}.xml").getroot()
    return {e.get("type"): e.text for e in root.iter("characterLabel")}


def tts_names(cldr, locale):
    root = ET.parse(f"{cldr}/annotations/{locale}.xml").getroot()
    return {e.get("cp"): e.text.strip() for e in root.iter("annotation") if e.get("type") == "tts"}


def english_answer(name):
    """Letters only, one short word, shown in capitals."""
    return name.upper() if re.fullmatch(r"[a-z]{3,7}", name) else None


def chinese_answer(name):
    """Two to four Han characters, nothing else."""
    return name if re.fullmatch(r"[\u4e00-\u9fff]{2,4}", name) else None


def build(cldr, font, locale, answer_of, seed):
    glyphs = font_code_points(font)
    category_of = categories(cldr)
    titles = character_labels(cldr, locale)
    names = tts_names(cldr, locale)
    candidates = []
    seen_answers = set()
    for picture, name in sorted(names.items(), key=lambda kv: ord(kv[0][0])):
        if len(picture) != 1:
            continue  # sequences (ZWJ, keycaps, flags) need shaping: single code points only
        cp = ord(picture)
        if cp < 0x2000 or cp in EXCLUDED or cp not in glyphs or cp not in category_of:
            continue
        answer = answer_of(name)
        if answer is None or answer in seen_answers:
            continue
        seen_answers.add(answer)
        candidates.append({"picture": picture, "category": category_of[cp], "answer": answer})
    rng = random.Random(seed)
    rng.shuffle(candidates)
    chosen = candidates[:MAX_QUESTIONS]
    if len(chosen) < MIN_QUESTIONS:
        fail(f"{locale}: only {len(chosen)} usable emoji, want {MIN_QUESTIONS}")

    # Distractor pools: characters of the chosen answers, by category and overall.
    pool_by_category = {}
    pool_all = []
    for q in chosen:
        for ch in q["answer"]:
            pool_by_category.setdefault(q["category"], []).append(ch)
            pool_all.append(ch)

    questions = []
    for q in chosen:
        answer = q["answer"]
        options = list(answer)
        taken = set(answer)
        for pool in (pool_by_category[q["category"]], pool_all):
            distinct = sorted(set(pool) - taken)
            rng.shuffle(distinct)
            for ch in distinct:
                if len(options) == OPTION_COUNT:
                    break
                options.append(ch)
                taken.add(ch)
        if len(options) != OPTION_COUNT:
            fail(f"{locale}: not enough distractors for {answer}")
        options.sort()  # the game shuffles; the file stays readable and stable
        title = titles.get(q["category"])
        if not title:
            fail(f"{locale}: CLDR has no characterLabel for {q['category']}")
        title = title[0].upper() + title[1:]  # "food & drink" -> "Food & drink" as a heading
        questions.append({"picture": q["picture"], "title": title, "answer": answer, "options": options})
    return questions


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cldr", default="/usr/share/unicode/cldr/common")
    parser.add_argument("--font", default="/usr/share/fonts/truetype/noto/NotoColorEmoji.ttf")
    parser.add_argument("--out", default="data/packs")
    args = parser.parse_args()
    packs = [
        ("zh", "看图猜词", chinese_answer, 2026),
        ("en", "Guess the Picture", english_answer, 2027),
    ]
    for locale, name, answer_of, seed in packs:
        try:
            questions = build(args.cldr, args.font, locale, answer_of, seed)
        except OSError as error:
            fail(f"{error} (apt-get install unicode-cldr-core fonts-noto-color-emoji)")
        pack = {
            "format": 1,
            "language": locale,
            "name": name,
            "source": "Unicode CLDR annotations (tts names) and labels; generated by tools/make-packs.py",
            "questions": questions,
        }
        path = f"{args.out}/{locale}.json"
        with open(path, "w", encoding="utf-8") as f:
            # One question per line: diffs of regenerated packs stay readable.
            f.write("{\n")
            for key in ("format", "language", "name", "source"):
                f.write(f"  {json.dumps(key)}: {json.dumps(pack[key], ensure_ascii=False)},\n")
            f.write('  "questions": [\n')
            lines = [json.dumps(q, ensure_ascii=False) for q in questions]
            f.write(",\n".join("    " + line for line in lines))
            f.write("\n  ]\n}\n")
        print(f"{path}: {len(questions)} questions")


if __name__ == "__main__":
    main()
