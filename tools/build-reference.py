#!/usr/bin/env python3
# Builds the offline reference-food resource (Sources/ReferenceFoods/Resources) from the USDA SR28 extract.
"""Turn ../shared/data/food-reference/{foods,portions,columns}.csv into the
compact, diff-friendly TSV files that ship inside ofj.

Output (one line per record, LF endings, UTF-8, sorted, no timestamps, so two
runs give the same bytes):

  columns.tsv   id, unit, sr28_nutr_no, name, foods_with_value   (65 nutrients)
  foods.tsv     ndb_no, fdc_id, food_group, description, common_name,
                then one column per nutrient in columns.tsv order.
                Values are copied verbatim (per 100 g edible portion).
                An empty cell means "not reported" and is never written as 0.
  portions.tsv  ndb_no, seq, amount, measure, gram_weight   (verbatim)

Usage:
  python3 tools/build-reference.py [SOURCE_DIR]          write the resource files
  python3 tools/build-reference.py --check [SOURCE_DIR]  exit 1 if the committed
                                                          files differ from what
                                                          the generator produces

SOURCE_DIR defaults to ../shared/data/food-reference relative to the repository
(or ../../shared/... when run from a worktree under /work/wt).
Python 3 standard library only.
"""
import argparse
import csv
import os
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# ../shared from the main checkout; worktrees live one level deeper (/work/wt/NAME), so try ../../shared too.
SOURCE_CANDIDATES = [os.path.normpath(os.path.join(REPO, *[".."] * depth, "shared", "data", "food-reference"))
                     for depth in (1, 2)]
DEFAULT_SOURCE = next((p for p in SOURCE_CANDIDATES if os.path.isdir(p)), SOURCE_CANDIDATES[0])
RESOURCES = os.path.join(REPO, "Sources", "ReferenceFoods", "Resources")

FOOD_TEXT_COLUMNS = ["ndb_no", "fdc_id", "food_group", "description", "common_name"]


def fail(message):
    sys.exit("build-reference: " + message)


def read_csv(path):
    try:
        with open(path, encoding="utf-8", newline="") as handle:
            reader = csv.DictReader(handle)
            return reader.fieldnames or [], list(reader)
    except FileNotFoundError:
        fail(f"{path} not found; pass the food-reference directory as an argument")


def cell(value, where):
    """A TSV cell must not contain the separators; the SR28 text never does, so refuse rather than escape."""
    value = value.strip()
    if any(ch in value for ch in "\t\n\r"):
        fail(f"tab or newline inside a field at {where}")
    return value


def number(value, where):
    """Nutrient and weight values stay verbatim strings; only check that they parse and are finite."""
    value = cell(value, where)
    if value == "":
        return value
    try:
        parsed = float(value)
    except ValueError:
        fail(f"not a number {value!r} at {where}")
    if parsed != parsed or parsed in (float("inf"), float("-inf")) or parsed < 0:
        fail(f"not a finite non-negative number {value!r} at {where}")
    return value


def build(source):
    """Return {file name: bytes} for every resource file."""
    _, column_rows = read_csv(os.path.join(source, "columns.csv"))
    nutrient_ids = [row["column"] for row in column_rows]
    if len(nutrient_ids) != len(set(nutrient_ids)) or not nutrient_ids:
        fail("columns.csv must list each nutrient column once")

    food_header, foods = read_csv(os.path.join(source, "foods.csv"))
    missing = [c for c in FOOD_TEXT_COLUMNS[:4] + nutrient_ids if c not in food_header]
    if missing:
        fail("foods.csv lacks columns: " + ", ".join(missing))

    counts = {nid: 0 for nid in nutrient_ids}
    food_lines = ["\t".join(FOOD_TEXT_COLUMNS + nutrient_ids)]
    seen = set()
    for row in sorted(foods, key=lambda r: r["ndb_no"]):
        ndb = cell(row["ndb_no"], "foods.csv ndb_no")
        if not ndb or ndb in seen:
            fail(f"empty or duplicate ndb_no {ndb!r} in foods.csv")
        seen.add(ndb)
        text = [cell(row.get(c) or "", f"foods.csv {ndb} {c}") for c in FOOD_TEXT_COLUMNS]
        values = []
        for nid in nutrient_ids:
            value = number(row[nid], f"foods.csv {ndb} {nid}")
            if value != "":
                counts[nid] += 1
            values.append(value)
        food_lines.append("\t".join(text + values))

    column_lines = ["\t".join(["id", "unit", "sr28_nutr_no", "name", "foods_with_value"])]
    for row in column_rows:
        nid = row["column"]
        expected = row.get("foods_with_value", "")
        if expected and int(expected) != counts[nid]:
            fail(f"columns.csv says {expected} foods have {nid}, foods.csv has {counts[nid]}")
        column_lines.append("\t".join([cell(nid, "columns.csv"), cell(row["unit"], nid),
                                       cell(row["sr28_nutr_no"], nid), cell(row["sr28_name"], nid),
                                       str(counts[nid])]))

    _, portions = read_csv(os.path.join(source, "portions.csv"))
    portion_lines = ["\t".join(["ndb_no", "seq", "amount", "measure", "gram_weight"])]
    keyed = []
    for row in portions:
        ndb = cell(row["ndb_no"], "portions.csv ndb_no")
        if ndb not in seen:
            fail(f"portions.csv names unknown food {ndb}")
        seq = cell(row["seq"], f"portions.csv {ndb} seq")
        keyed.append(((ndb, int(seq)), "\t".join([
            ndb, seq,
            number(row["amount"], f"portions.csv {ndb}/{seq} amount"),
            cell(row["measure"], f"portions.csv {ndb}/{seq} measure"),
            number(row["gram_weight"], f"portions.csv {ndb}/{seq} gram_weight"),
        ])))
    keyed.sort(key=lambda pair: pair[0])
    portion_lines += [line for _, line in keyed]

    def encode(lines):
        return ("\n".join(lines) + "\n").encode("utf-8")

    return {
        "columns.tsv": encode(column_lines),
        "foods.tsv": encode(food_lines),
        "portions.tsv": encode(portion_lines),
    }


def main():
    parser = argparse.ArgumentParser(description="Build the ofj reference-food resource from the SR28 extract.")
    parser.add_argument("source", nargs="?", default=DEFAULT_SOURCE, help="food-reference directory")
    parser.add_argument("--check", action="store_true", help="compare instead of writing")
    parser.add_argument("--out", default=RESOURCES, help="resource directory (default: the ReferenceFoods target's)")
    args = parser.parse_args()

    outputs = build(args.source)
    if args.check:
        stale = []
        for name, data in outputs.items():
            path = os.path.join(args.out, name)
            try:
                with open(path, "rb") as handle:
                    if handle.read() != data:
                        stale.append(name)
            except FileNotFoundError:
                stale.append(name)
        if stale:
            fail("out of date: " + ", ".join(stale) + "; run python3 tools/build-reference.py and commit")
        print("reference resource matches the generator (" + ", ".join(sorted(outputs)) + ")")
        return

    os.makedirs(args.out, exist_ok=True)
    for name, data in sorted(outputs.items()):
        with open(os.path.join(args.out, name), "wb") as handle:
            handle.write(data)
        print(f"wrote {name}: {len(data):,} bytes")


if __name__ == "__main__":
    main()
