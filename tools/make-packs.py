#!/usr/bin/env python3
"""Builds Guess Picture's question packs (data/packs/zh.json, data/packs/en.json) from the
hand-reviewed list tools/packs/review.txt: only questions a player can answer from the
picture and the clue are shipped.

  review.txt  every candidate picture with its clue, zh and en answers, kept/dropped and why
  clues.txt   the allowed clues (titles) in both languages
  candidates  every single-code-point emoji that CLDR labels (unicode-cldr-core's
              properties/labels.txt) and Noto Color Emoji draws must have a review row, so
              a new emoji font or CLDR release shows up as unreviewed pictures
  pictures    single code points that Noto Color Emoji has a glyph for (read from its cmap)

  synonyms.txt  other words that fit a picture under its clue (小马 for 🐎, PLANET for 🪐)

Options are the answer's characters plus distractors drawn from other answers of the same
pack (same clue first), so every option looks like it could belong; but no distractor may
complete a rival: another answer under the same clue, or one of the picture's synonyms, that
has the answer's number of letters (the slots the game shows), so only the answer fits the
slots. A question whose own letters spell a rival stops the build.
Deterministic: the same inputs always give byte-identical packs.

usage: tools/make-packs.py [--cldr DIR] [--font FILE] [--review DIR] [--out DIR]
"""
import argparse
import collections
import json
import random
import re
import struct
import sys
import xml.etree.ElementTree as ET

OPTION_COUNT = 21
# labels.txt second-level labels whose emoji are pictures of things: the candidates every
# review must cover. (People, faces, flags and symbols are left out as a whole.)
THING_LABELS = (
    "animal-", "plant-", "food-", "drink", "transport-ground", "transport-water", "transport-air",
    "place-", "sky & weather", "sport", "event", "game", "arts & crafts", "musical-instrument",
    "music", "household", "tool", "science", "writing", "office", "light & video", "computer",
    "phone", "book-paper", "mail", "money",
)


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


def labelled_code_points(cldr):
    """Code points labels.txt files under one of THING_LABELS."""
    result = set()
    with open(f"{cldr}/properties/labels.txt", encoding="utf-8") as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            fields = [x.strip() for x in line.split(";")]
            if len(fields) >= 3 and fields[2].startswith(THING_LABELS):
                result.update(parse_unicode_set(fields[0]))
    return result


def tts_names(cldr, locale):
    root = ET.parse(f"{cldr}/annotations/{locale}.xml").getroot()
    return {e.get("cp"): e.text.strip() for e in root.iter("annotation") if e.get("type") == "tts"}


VERDICTS = {"kept": ("zh", "en"), "zh": ("zh",), "en": ("en",), "dropped": ()}
MIN_QUESTIONS = 150
ANSWER_RULES = {
    # Two to four Han characters, nothing else.
    "zh": (re.compile(r"[\u4e00-\u9fff]{2,4}"), "2-4 Han characters"),
    # One word of 3-7 letters, shown in capitals.
    "en": (re.compile(r"[A-Z]{3,7}"), "3-7 capital letters"),
}


def read_rows(path, columns):
    """Lines of "a | b | c" (blank lines and # comments skipped), with their line numbers."""
    rows = []
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            fields = [x.strip() for x in line.split("|")]
            if len(fields) != columns:
                fail(f"{path}:{number}: {len(fields)} fields, want {columns}")
            rows.append((number, fields))
    return rows


def read_clues(path):
    """clue key -> {"zh": title, "en": title}."""
    return {key: {"zh": zh, "en": en} for _, (key, zh, en) in read_rows(path, 3)}


def read_review(path, clues, glyphs):
    """Checks every row and returns them as dicts; any broken rule stops the build."""
    reviewed = []
    seen = set()
    for number, (picture, clue, zh, en, verdict, reason) in read_rows(path, 6):
        where = f"{path}:{number}"
        if len(picture) != 1:
            fail(f"{where}: picture {picture!r} is not one code point (sequences need shaping)")
        if ord(picture) not in glyphs:
            fail(f"{where}: Noto Color Emoji has no glyph for {picture} (U+{ord(picture):04X})")
        if picture in seen:
            fail(f"{where}: {picture} is reviewed twice")
        seen.add(picture)
        if verdict not in VERDICTS:
            fail(f"{where}: verdict {verdict!r}, want one of {', '.join(VERDICTS)}")
        languages = VERDICTS[verdict]
        if verdict != "kept" and not reason:
            fail(f"{where}: {picture} drops a language without saying why")
        if languages and clue not in clues:
            fail(f"{where}: clue {clue!r} is not in clues.txt")
        answers = {"zh": zh, "en": en}
        for language in ("zh", "en"):
            if language in languages:
                pattern, rule = ANSWER_RULES[language]
                if not pattern.fullmatch(answers[language]):
                    fail(f"{where}: {language} answer {answers[language]!r} is not {rule}")
            elif answers[language] != "-":
                fail(f"{where}: {language} is dropped but has the answer {answers[language]!r}")
        reviewed.append({"picture": picture, "clue": clue, "answers": answers, "languages": languages})
    return reviewed


def read_synonyms(path, reviewed):
    """picture -> {"zh": [words], "en": [words]}, for pictures shipped in those languages."""
    by_picture = {row["picture"]: row for row in reviewed}
    synonyms = {}
    for number, (picture, zh, en) in read_rows(path, 3):
        where = f"{path}:{number}"
        row = by_picture.get(picture)
        if row is None:
            fail(f"{where}: {picture} has no review row")
        if picture in synonyms:
            fail(f"{where}: {picture} is listed twice")
        words = {}
        for language, field in (("zh", zh), ("en", en)):
            words[language] = [] if field == "-" else field.split()
            if words[language] and language not in row["languages"]:
                fail(f"{where}: {picture} is not shipped in {language}, its words there are unused")
            pattern = re.compile(r"[\u4e00-\u9fff]+" if language == "zh" else r"[A-Z]+")
            for word in words[language]:
                if not pattern.fullmatch(word):
                    fail(f"{where}: {language} word {word!r} is not {'Han characters' if language == 'zh' else 'capital letters'}")
                if word == row["answers"][language]:
                    fail(f"{where}: {word} is {picture}'s own answer")
        synonyms[picture] = words
    return synonyms


def spellable(word, options):
    """Whether the options (a Counter) hold every letter of word as often as it uses it."""
    return not collections.Counter(word) - options


def unreviewed(cldr, glyphs, reviewed):
    """CLDR-labelled single-code-point emoji the font draws that have no review row."""
    pictures = {row["picture"] for row in reviewed}
    missing = []
    for cp in sorted(labelled_code_points(cldr)):
        if cp >= 0x2000 and cp in glyphs and chr(cp) not in pictures and chr(cp) in tts_names(cldr, "en"):
            missing.append(chr(cp))
    return missing


def build(reviewed, clues, synonyms, language, seed):
    chosen = [q for q in reviewed if language in q["languages"]]
    answers = [q["answers"][language] for q in chosen]
    for answer in set(answers):
        if answers.count(answer) > 1:
            fail(f"{language}: the answer {answer} is given to more than one picture")
    if len(chosen) < MIN_QUESTIONS:
        fail(f"{language}: only {len(chosen)} questions kept, want {MIN_QUESTIONS}")
    rng = random.Random(seed)
    chosen = sorted(chosen, key=lambda q: ord(q["picture"]))
    rng.shuffle(chosen)

    # Distractor pools: characters of the kept answers, by clue and overall.
    pool_by_clue = {}
    pool_all = []
    for q in chosen:
        for ch in q["answers"][language]:
            pool_by_clue.setdefault(q["clue"], []).append(ch)
            pool_all.append(ch)

    questions = []
    for q in chosen:
        answer = q["answers"][language]
        # Words the player could fairly enter in the answer's slots instead of the answer.
        rivals = [r["answers"][language] for r in chosen if r is not q and r["clue"] == q["clue"]]
        rivals += synonyms.get(q["picture"], {}).get(language, [])
        rivals = [w for w in rivals if len(w) == len(answer)]
        options = list(answer)
        held = collections.Counter(options)
        for rival in rivals:
            if spellable(rival, held):
                fail(f"{language}: {q['picture']} {answer}: its own letters spell {rival}; change the answer or drop it")
        taken = set(answer)
        for pool in (pool_by_clue[q["clue"]], pool_all):
            distinct = sorted(set(pool) - taken)
            rng.shuffle(distinct)
            for ch in distinct:
                if len(options) == OPTION_COUNT:
                    break
                held[ch] += 1
                if any(spellable(rival, held) for rival in rivals):
                    held[ch] -= 1
                    continue
                options.append(ch)
                taken.add(ch)
        if len(options) != OPTION_COUNT:
            fail(f"{language}: not enough distractors for {answer}")
        options.sort()  # the game shuffles; the file stays readable and stable
        questions.append({"picture": q["picture"], "title": clues[q["clue"]][language], "answer": answer, "options": options})
    return questions


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cldr", default="/usr/share/unicode/cldr/common")
    parser.add_argument("--font", default="/usr/share/fonts/truetype/noto/NotoColorEmoji.ttf")
    parser.add_argument("--review", default="tools/packs", help="holds review.txt, clues.txt and synonyms.txt")
    parser.add_argument("--out", default="data/packs")
    args = parser.parse_args()
    try:
        glyphs = font_code_points(args.font)
        clues = read_clues(f"{args.review}/clues.txt")
        reviewed = read_review(f"{args.review}/review.txt", clues, glyphs)
        synonyms = read_synonyms(f"{args.review}/synonyms.txt", reviewed)
        missing = unreviewed(args.cldr, glyphs, reviewed)
    except OSError as error:
        fail(f"{error} (apt-get install unicode-cldr-core fonts-noto-color-emoji)")
    if missing:
        fail(f"not reviewed yet (add rows to review.txt): {' '.join(missing)}")
    packs = [
        ("zh", "看图猜词", 2026),
        ("en", "Guess the Picture", 2027),
    ]
    for locale, name, seed in packs:
        questions = build(reviewed, clues, synonyms, locale, seed)
        pack = {
            "format": 1,
            "language": locale,
            "name": name,
            "source": "tools/packs/review.txt (reviewed by hand); generated by tools/make-packs.py",
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
