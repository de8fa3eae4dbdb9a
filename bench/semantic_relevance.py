"""Which frames should a search by meaning return? Rules measured on the labelled quality set
(issue 23, item 1 and 2: relevance without one fixed similarity for every query, and across
languages).

Reads a data dir kept by `bench/search_quality.py --keep` (its 46 screens, OCR'd by the real
engine), embeds every frame as the app does (window title, then text, cut by text_chunks) and
every labelled and off-topic question with each packaged model, and takes a frame's similarity
to a question as its best chunk's. Then for each rule: semantic recall@10 per query class, and
how many results the off-topic questions (bench.quality.queries.OFF_TOPIC) still get.

Rules:
- fixed: one similarity for every query (what the app does today: e5 0.80, MiniLM 0.20);
- z vs the corpus: a frame counts when it stands out of the query's own similarity
  distribution over the set (mean/sd, or median/MAD);
- both models: reciprocal-rank fusion of both models' lists, each with its own bar;
- z vs strays: each model's similarity measured against the best strays of off-topic
  questions (mean and sd), the better of the two models;
- script-centred: a passage's similarity less the query's similarity to the mean passage of
  the passage's script (Chinese or Latin), computable at query time from the stored vectors:
  it removes the pull of a query's own language.
- the app's rule (search.relevance, its own functions): order by similarity less the pull of
  the chunk's script measured on the packaged everyday questions, select by the z of the
  query against those questions on each chunk (z_keep, z_sure, z_first); a sweep of the three
  thresholds, the app's setting marked, is how relevance.THRESHOLDS were chosen.

    .venv/bin/python bench/search_quality.py --keep          # prints: kept /tmp/myrecall-bench-quality-...
    .venv/bin/python bench/semantic_relevance.py /tmp/myrecall-bench-quality-...
"""

import argparse
import os
import subprocess
import sys
import json
from pathlib import Path

import re

import numpy as np

REPO = Path(__file__).resolve().parent.parent
MODELS = ("multilingual-e5-small", "all-MiniLM-L6-v2")
CJK = re.compile(r"[\u3400-\u9fff]")
FIXED = {"multilingual-e5-small": (0.78, 0.80, 0.81), "all-MiniLM-L6-v2": (0.15, 0.20, 0.25)}


def similarities(data_dir: str, model: str) -> dict:
    """Run in a process of its own (one model per process): every question's similarity to every screen."""
    os.environ.update({"MYRECALL_DATA_DIR": data_dir, "EMBEDDINGS_MODEL": model, "DJANGO_SETTINGS_MODULE": "myrecall.settings"})
    sys.path.insert(0, str(REPO))
    import django

    django.setup()
    from bench.quality.queries import OFF_TOPIC, QUERIES, SCREENS
    from frames.models import Frame
    from search.embeddings import embed_query, embed_texts
    from search.passages import frame_passages

    by_time = {round(float(screen.timestamp), 3): screen.key for screen in SCREENS}
    chunks, owners = [], []
    for frame in Frame.objects.select_related("ocr").order_by("id"):
        text = getattr(getattr(frame, "ocr", None), "text", "") or ""
        for passage in frame_passages(window_name=frame.window_name, text=text):
            chunks.append(passage.text)
            owners.append(by_time[round(frame.timestamp.timestamp(), 3)])
    vectors = np.array(embed_texts(chunks), dtype=np.float32)
    # Each chunk's script (Chinese when a fifth of its letters are CJK), and each script's mean vector.
    scripts = ["zh" if len(CJK.findall(chunk)) > 0.2 * max(1, len("".join(chunk.split()))) else "latin" for chunk in chunks]
    means = {script: vectors[[i for i, s in enumerate(scripts) if s == script]].mean(axis=0) for script in set(scripts)}

    def per_screen(q: str, *, centred: bool) -> dict[str, float]:
        query = np.array(embed_query(q), dtype=np.float32)
        scores = vectors @ query
        if centred:  # how much nearer than the average passage in its own script
            scores = scores - np.array([query @ means[script] for script in scripts])
        best: dict[str, float] = {}
        for key, score in zip(owners, scores):
            best[key] = max(best.get(key, -1.0), float(score))
        return best

    from search import relevance

    records = []  # each chunk's relevance record, as the worker keeps it
    for chunk, vector in zip(chunks, vectors.tolist()):
        records.append(relevance.chunk_record(relevance.chunk_stats([chunk], [vector]), 0))

    def app_rule(q: str) -> dict:
        """Per screen, as search.semantic does: the best chunk's distance plus its script's pull, and its best z."""
        embedding = embed_query(q)
        weigh = relevance.query_relevance(q, embedding)
        sims = vectors @ np.array(embedding, dtype=np.float32)
        distance: dict[str, float] = {}
        z: dict[str, float] = {}
        for key, sim, record in zip(owners, sims, records):
            distance[key] = min(distance.get(key, 9.0), 1 - float(sim) + weigh.pull[record[0]])
            z[key] = max(z.get(key, -99.0), relevance.chunk_z(record, float(sim), weigh.language))
        return {"distance": distance, "z": z}

    def item(q: str, **extra) -> dict:
        return {"q": q, **extra, "sims": per_screen(q, centred=False), "centred": per_screen(q, centred=True), "app": app_rule(q)}

    return {
        "labelled": [item(query.q, cls=query.cls, answers=list(query.answers)) for query in QUERIES],
        "off": [item(q) for q in OFF_TOPIC],
        "thresholds": list(relevance.thresholds()),
    }


def ranked(sims: dict[str, float]) -> list[str]:
    return sorted(sims, key=lambda key: -sims[key])


def report(label: str, keep, sets: dict, field: str = "sims") -> None:
    """keep(sims by model for one question) -> the screens returned, best first; field "centred"
    gives it the script-centred similarities."""
    first = sets[MODELS[0]]
    by_class: dict[str, list[bool]] = {}
    for i, item in enumerate(first["labelled"]):
        got = keep({model: sets[model]["labelled"][i][field] for model in sets})[:10]
        by_class.setdefault(item["cls"], []).append(any(key in item["answers"] for key in got))
    off = [len(keep({model: sets[model]["off"][i][field] for model in sets})[:10]) for i in range(len(first["off"]))]
    classes = " ".join(f"{cls} {np.mean(hits):.2f}" for cls, hits in by_class.items())
    print(f"{label:<46} {classes} | off-topic: {np.mean(off):.2f} results, {np.mean([n > 0 for n in off]):.2f} with any")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("data_dir", help="a data dir kept by bench/search_quality.py --keep")
    parser.add_argument("--one", help=argparse.SUPPRESS)  # internal: the similarities of one model, as JSON
    args = parser.parse_args()
    if args.one:
        print(json.dumps(similarities(args.data_dir, args.one)))
        return
    sets = {}
    for model in MODELS:
        print(f"embedding the set and the questions with {model} ...", flush=True)
        run = subprocess.run([sys.executable, __file__, args.data_dir, "--one", model], capture_output=True, text=True, check=True)
        sets[model] = json.loads(run.stdout.strip().splitlines()[-1])

    e5, mini = MODELS
    print("\nsemantic recall@10 per class | what off-topic questions get")
    for model in MODELS:
        report(f"{model} ranking alone (no bar)", lambda s, m=model: ranked(s[m]), sets)
        report(f"{model} script-centred, ranking alone", lambda s, m=model: ranked(s[m]), sets, "centred")
    for bar in (0.02, 0.03, 0.04):
        report(f"{MODELS[0]} script-centred >= {bar}", lambda s, b=bar: [k for k in ranked(s[MODELS[0]]) if s[MODELS[0]][k] >= b], sets, "centred")
    for model in MODELS:
        for bar in FIXED[model]:
            report(f"{model} fixed {bar}", lambda s, m=model, b=bar: [k for k in ranked(s[m]) if s[m][k] >= b], sets)
    for model in MODELS:
        for z in (2.0, 3.0):
            def keep(s, m=model, z=z):
                values = np.array(list(s[m].values()))
                mean, sd = values.mean(), values.std() + 1e-9
                return [k for k in ranked(s[m]) if (s[m][k] - mean) / sd >= z]
            report(f"{model} z vs the corpus >= {z}", keep, sets)

    def rrf(lists: list[list[str]], k: int = 60) -> list[str]:
        score: dict[str, float] = {}
        for found in lists:
            for rank, key in enumerate(found):
                score[key] = score.get(key, 0.0) + 1 / (k + rank + 1)
        return sorted(score, key=lambda key: -score[key])

    for bar_e5, bar_mini in ((0.80, 0.20), (0.81, 0.25), (0.79, 0.25)):
        report(
            f"both models, RRF (e5 >= {bar_e5}, MiniLM >= {bar_mini})",
            lambda s, a=bar_e5, b=bar_mini: rrf([[k for k in ranked(s[e5]) if s[e5][k] >= a], [k for k in ranked(s[mini]) if s[mini][k] >= b]]),
            sets,
        )
    strays = {model: [max(item["sims"].values()) for item in sets[model]["off"]] for model in MODELS}
    stats = {model: (np.mean(v), np.std(v) + 1e-9) for model, v in strays.items()}
    print("best stray of each off-topic question: " + ", ".join(f"{m} mean {s[0]:.3f} sd {s[1]:.3f}" for m, s in stats.items()))
    for z in (0.5, 1.0, 2.0):
        def keep(s, z=z):
            keys = set(s[e5]) | set(s[mini])
            score = {k: max((s[m].get(k, 0.0) - stats[m][0]) / stats[m][1] for m in MODELS) for k in keys}
            return [k for k in sorted(keys, key=lambda k: -score[k]) if score[k] >= z]
        report(f"both models, the better z vs strays >= {z}", keep, sets)
    print("\n(the stray statistics come from the same off-topic questions they are tested on: optimistic)")
    app_sweep(sets)


def app_select(app: dict, keep_at: float, sure_at: float, first_at: float) -> list[str]:
    """search.relevance.select on one question's screens (the same rule, on screen keys)."""
    ranked = sorted(app["distance"], key=lambda key: app["distance"][key])
    sure = any(app["z"][key] >= sure_at for key in ranked[:10])
    kept = [key for key in ranked if app["z"][key] >= keep_at]
    if sure:
        return kept
    return ranked[:1] if ranked and app["z"][ranked[0]] >= first_at else kept[:1]


def app_sweep(sets: dict) -> None:
    """The app's rule with its thresholds swept: recall@10 per class and what off-topic questions get."""
    for model, found in sets.items():
        setting = tuple(found["thresholds"])
        print(f"\nthe app's rule (search.relevance), {model}: z_keep / z_sure / z_first, the app's setting marked *")
        grid = sorted({setting, *[(keep, sure, first) for keep in (1.5, 2.0, 2.5, 3.0) for sure in (2.5, 3.0, 3.5, 4.0)
                                  for first in (keep - 1.0, keep - 0.3) if sure >= keep]})
        for keep, sure, first in grid:
            by_class: dict[str, list[bool]] = {}
            for item in found["labelled"]:
                got = app_select(item["app"], keep, sure, first)[:10]
                by_class.setdefault(item["cls"], []).append(any(key in item["answers"] for key in got))
            off = [len(app_select(item["app"], keep, sure, first)[:10]) for item in found["off"]]
            mark = "*" if (keep, sure, first) == setting else " "
            classes = " ".join(f"{cls} {np.mean(hits):.2f}" for cls, hits in by_class.items())
            print(f" {mark}{keep:4.1f} {sure:4.1f} {first:4.1f}  {classes} | off-topic: {np.mean(off):.2f} results")


if __name__ == "__main__":
    main()
