#!/usr/bin/env python3
"""Xapian side of bench/compare.js (issue 12): the same parts, BM25, in process.

  xapian_bench.py index <parts.tsv> <dbdir> [name_wdf]  -> JSON {seconds, docs}
  xapian_bench.py query <dbdir> <queries.json> <k>      -> JSON [{ms, total, top: [[id, weight]...]}]
  xapian_bench.py search <dbdir> <texts.json> <k>       -> JSON [[id, ...], ...]

parts.tsv: part_id TAB name TAB vendor (one part a line). Names are indexed with a wdf of name_wdf
(default 10: the catalog weighs a name occurrence 10 times a value's; bench/relevance.js passes 3)
per word and the vendor (or any second text) with 1; no stemming,
BM25Weight(k1=1.2, k2=0, k3=1, b=0.75), the catalog's constants. A query is its words joined by
OP_AND (every word must match, as in the catalog). `search` (bench/relevance.js) takes each query as
a person typed it through Xapian's QueryParser: every word required (OP_AND), punctuated words as
phrases, the last word also a prefix (FLAG_PARTIAL), and prints the ids of the first k hits. `top` lists the best k hits plus every hit tied
with the k-th (tie-aware overlap), with their weights; `total` is Xapian's exact count
(check_at_least = the database size).
"""
import json
import sys
import time

try:
    import xapian
except ImportError:
    print(json.dumps({"error": "python3-xapian is not installed (apt-get install -y python3-xapian)"}))
    sys.exit(3)


def index(tsv, dbdir, name_wdf=10):
    start = time.perf_counter()
    db = xapian.WritableDatabase(dbdir, xapian.DB_CREATE_OR_OVERWRITE)
    tg = xapian.TermGenerator()
    n = 0
    db.begin_transaction(False)
    with open(tsv, encoding="utf-8") as f:
        for line in f:
            part_id, name, vendor = line.rstrip("\n").split("\t")
            doc = xapian.Document()
            tg.set_document(doc)
            tg.index_text(name, name_wdf)
            tg.increase_termpos()
            tg.index_text(vendor, 1)
            doc.set_data(part_id)
            db.add_document(doc)
            n += 1
            if n % 100000 == 0:
                db.commit_transaction()
                db.begin_transaction(False)
    db.commit_transaction()
    db.close()
    print(json.dumps({"seconds": time.perf_counter() - start, "docs": n}))


def query(dbdir, queries_file, k):
    db = xapian.Database(dbdir)
    enquire = xapian.Enquire(db)
    enquire.set_weighting_scheme(xapian.BM25Weight(1.2, 0, 1, 0.75, 0.5))
    size = db.get_doccount()
    with open(queries_file, encoding="utf-8") as f:
        queries = json.load(f)
    out = []
    for words in queries:
        q = xapian.Query(xapian.Query.OP_AND, [w.lower() for w in words])
        start = time.perf_counter()
        enquire.set_query(q)
        mset = enquire.get_mset(0, k)
        ms = (time.perf_counter() - start) * 1000
        top = [[m.document.get_data().decode("utf-8"), m.weight] for m in mset]
        # Ties with the k-th hit (not part of the timed query): any of them may rightly be in a top k.
        if len(top) == k:
            last = top[-1][1]
            wide = enquire.get_mset(0, 5000)
            top = [[m.document.get_data().decode("utf-8"), m.weight] for m in wide if m.weight >= last - 1e-9]
        total = enquire.get_mset(0, 0, size).get_matches_estimated()
        out.append({"ms": ms, "total": total, "top": top})
    print(json.dumps(out))


def search(dbdir, texts_file, k):
    db = xapian.Database(dbdir)
    enquire = xapian.Enquire(db)
    enquire.set_weighting_scheme(xapian.BM25Weight(1.2, 0, 1, 0.75, 0.5))
    qp = xapian.QueryParser()
    qp.set_database(db)
    qp.set_default_op(xapian.Query.OP_AND)
    flags = xapian.QueryParser.FLAG_PHRASE | xapian.QueryParser.FLAG_PARTIAL
    with open(texts_file, encoding="utf-8") as f:
        texts = json.load(f)
    out = []
    for text in texts:
        try:
            enquire.set_query(qp.parse_query(text, flags))
            out.append([m.document.get_data().decode("utf-8") for m in enquire.get_mset(0, k)])
        except xapian.QueryParserError:
            out.append([])
    print(json.dumps(out))


if __name__ == "__main__":
    if sys.argv[1] == "index":
        index(sys.argv[2], sys.argv[3], int(sys.argv[4]) if len(sys.argv) > 4 else 10)
    elif sys.argv[1] == "search":
        search(sys.argv[2], sys.argv[3], int(sys.argv[4]))
    else:
        query(sys.argv[2], sys.argv[3], int(sys.argv[4]))
