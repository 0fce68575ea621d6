#!/usr/bin/env python3
"""Asks whether a static word-embedding model would help get_rules' selection, left out of the
product since it did not (bench/selection/README.md, fifth round).

For every candidate of every case it takes the cosine similarity of the task and the item's
whole text (title, description and body) in WordLlama's 256-dimension model (the `wordllama`
package on PyPI, which ships its weights; nothing is downloaded) and the candidate's rank by that
similarity within the call (1 / rank). It then scores, leaving one project out at a time, the
selection fitted by tune.py on the eight other projects: without these features, with the rank,
and with both. Each fold chooses its size cost and one threshold on its own eight projects
within tune.TOKEN_CAP; the left-out project's numbers are modelled as tune.py models a reply.

Usage (the model is not a dependency of this repository):
    python3 -m venv /tmp/probe && /tmp/probe/bin/pip install wordllama==0.4.0.post1
    cargo run -q --example selection_features > /tmp/features.json
    cargo run -q --example selection_item_texts > /tmp/texts.json
    /tmp/probe/bin/python bench/selection/embedding_probe.py /tmp/features.json /tmp/texts.json
"""

import os
import sys

import numpy
import wordllama

import tune

VARIANTS = [[], ["similarity_rank"], ["similarity", "similarity_rank"]]
FITTED_FEATURES = list(tune.FEATURES)


def load_model():
    # wordllama 0.4.0 looks for its bundled tokenizer in a folder named `tokenizer`, but ships
    # it in `tokenizers`; pointing its cache at the package folder finds both files offline.
    package = os.path.dirname(wordllama.__file__)
    return wordllama.WordLlama.load(cache_dir=package, disable_download=True)


def add_similarity(features, texts, model):
    for project, rows in features.items():
        with open(os.path.join(tune.HERE, "cases", f"{project}.json"), encoding="utf-8") as handle:
            labels = tune.json.load(handle)
        items = texts[project]
        keys = list(items)
        documents = []
        for key in keys:
            item = items[key]
            title = item["title"] or key.split(":", 1)[1].replace("-", " ")
            documents.append(f"{title}. {item['description'] or ''}\n{item['body']}")
        item_vectors = model.embed(documents, norm=True)
        task_vectors = model.embed([label.get("task") or "" for label in labels], norm=True)
        for row, task_vector in zip(rows, task_vectors):
            similarities = [float(numpy.dot(item_vectors[keys.index(tune.key(candidate))], task_vector))
                            for candidate in row]
            order = sorted(range(len(row)), key=lambda index: -similarities[index])
            for rank, index in enumerate(order):
                row[index]["similarity"] = similarities[index]
                row[index]["similarity_rank"] = 1.0 / (rank + 1)


def leave_one_project_out(cases, extra):
    base_vector = tune.vector
    tune.FEATURES = FITTED_FEATURES + extra
    tune.vector = lambda candidate: base_vector(candidate) + [candidate[name] for name in extra]
    thresholds = [round(-3.0 + 0.1 * step, 1) for step in range(61)]
    recall_sum, full_sum, counted = 0.0, 0.0, 0
    for left in sorted({case[0] for case in cases}):
        train = [case for case in cases if case[0] != left]
        test = [case for case in cases if case[0] == left]
        coefficients, bias = tune.fit(train, rounds=1500)
        best = None
        for cost in tune.COSTS:
            train_strengths = tune.strengths(train, coefficients, bias, cost)
            for threshold in thresholds:
                numbers = tune.evaluate(train, train_strengths, threshold, threshold)
                if numbers["token_share"] > tune.TOKEN_CAP:
                    continue
                rank = (round(numbers["mean_recall"], 4), round(numbers["full_recall_share"], 4),
                        -numbers["token_share"])
                if best is None or rank > best[0]:
                    best = (rank, cost, threshold)
        _, cost, threshold = best
        numbers = tune.evaluate(test, tune.strengths(test, coefficients, bias, cost), threshold, threshold)
        needing = sum(1 for case in test if case[1])
        recall_sum += numbers["mean_recall"] * needing
        full_sum += numbers["full_recall_share"] * needing
        counted += needing
        print(f"  {left:15} mean recall {numbers['mean_recall']:.3f}  recall 1.0 "
              f"{100 * numbers['full_recall_share']:5.1f} %  tokens {100 * numbers['token_share']:5.1f} %")
    tune.vector = base_vector
    print(f"  {'all':15} mean recall {recall_sum / counted:.3f}  recall 1.0 {100 * full_sum / counted:5.1f} %")


def main():
    features_path, texts_path = sys.argv[1], sys.argv[2]
    with open(features_path, encoding="utf-8") as handle:
        features = tune.json.load(handle)
    with open(texts_path, encoding="utf-8") as handle:
        texts = tune.json.load(handle)
    add_similarity(features, texts, load_model())
    cases = []
    for project, rows in features.items():
        with open(os.path.join(tune.HERE, "cases", f"{project}.json"), encoding="utf-8") as handle:
            labels = tune.json.load(handle)
        for label, row in zip(labels, rows):
            cases.append((project, set(label["relevant"]), set(label["acceptable"]), row))
    for extra in VARIANTS:
        print("features:", "the fitted ones" + "".join(f" + {name}" for name in extra))
        leave_one_project_out(cases, extra)


if __name__ == "__main__":
    main()
