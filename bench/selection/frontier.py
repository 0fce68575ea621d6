#!/usr/bin/env python3
"""How far the selection's ranking can go: recall against tokens as the threshold moves.

Reads the weights, size cost and thresholds of src/retrieval/select.rs and the features of every
case (printed by `cargo run --example selection_features`), then, in tune.py's model of a reply,
prints for a range of thresholds the mean recall, the share of cases at recall 1.0 and the
reply tokens as a share of the eligible tokens, over all projects. Nothing is fitted here: it
shows which recall the ranking reaches at which cost, and so whether a target pair (recall and
tokens) is reachable by moving the threshold alone. The last line is the recall counting as
found every needed item that is sent or listed with a summary line (within NEAR_MISS of the
threshold), which an agent can fetch with `include`.

Usage: cargo run -q --example selection_features > /tmp/features.json
       python3 bench/selection/frontier.py /tmp/features.json
"""

import math
import os
import re
import sys

import tune

HERE = os.path.dirname(os.path.abspath(__file__))
SELECT_RS = os.path.join(HERE, "..", "..", "src", "retrieval", "select.rs")


def constants():
    """The weights, bias and thresholds as select.rs holds them."""
    with open(SELECT_RS, encoding="utf-8") as handle:
        text = handle.read()
    block = re.search(r"const WEIGHTS: Weights = Weights \{(.*?)\};", text, re.S).group(1)
    weights = {name: float(value) for name, value in re.findall(r"(\w+): (-?[\d.]+),", block)}

    def number(name):
        return float(re.search(rf"const {name}: f64 = (-?[\d.]+);", text).group(1))

    return weights, number("BIAS"), number("THRESHOLD"), number("SKILL_THRESHOLD")


def main():
    cases = tune.load(sys.argv[1])
    weights, bias, threshold, skill_threshold = constants()
    coefficients = [weights[name] for name in tune.FEATURES]
    cost = weights["log_tokens"]
    strengths = tune.strengths(cases, coefficients, bias, cost)
    print(f"select.rs: threshold {threshold}, skill threshold {skill_threshold}, size cost {cost}")
    print("threshold  mean recall  recall 1.0  tokens")
    for step in range(0, 26):
        bar = round(threshold - 0.1 * step, 1)
        numbers = tune.evaluate(cases, strengths, bar, bar + skill_threshold - threshold)
        print(f"{bar:9.1f}  {numbers['mean_recall']:11.3f}  {100 * numbers['full_recall_share']:9.1f} %"
              f"  {100 * numbers['token_share']:5.1f} %")
    recalls, complete = [], 0
    for (_, relevant, _, row), row_strengths in zip(cases, strengths):
        if not relevant:
            continue
        found = sum(1 for candidate, strength in zip(row, row_strengths)
                    if tune.key(candidate) in relevant
                    and (candidate["always"] or candidate["exact"]
                         or strength >= threshold - tune.NEAR_MISS))
        recalls.append(found / len(relevant))
        complete += found == len(relevant)
    print(f"sent or listed with a summary at the threshold of select.rs: mean recall "
          f"{sum(recalls) / len(recalls):.3f}, {100 * complete / len(recalls):.1f} % at recall 1.0")


if __name__ == "__main__":
    main()
