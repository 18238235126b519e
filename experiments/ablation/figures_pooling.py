"""Question 3 of the ablation's page from the pooling study's tables (experiments/pooling/results),
read as its own report reads them. A part of report.py's Results."""
import importlib.util
import os

# The pooling study's report, imported by path: both scripts are named report.py.
_spec = importlib.util.spec_from_file_location(
    "pooling_report", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "pooling",
                                   "report.py"))
POOLING_REPORT = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(POOLING_REPORT)

from figures_base import *  # noqa: F401,F403  (the result files' readers and the formats)


class PoolingFigures:
    """The pooling study's parts: {part: rows}, and the figures question 3 quotes."""

    def load_pooling(self, pooling):
        """The pooling study's tables in POOLING (None: none)."""
        # The pooling study's parts, as its own report reads them: {part: rows}.
        self.pooling = {}
        for name, _ in POOLING_REPORT.PARTS:
            file = os.path.join(pooling, f"{name}.tsv") if pooling else None
            if file and os.path.exists(file):
                self.pooling[name] = POOLING_REPORT.read_rows(file)

    def pooling_best(self, part, task, model, length=None):
        """The pooling study's row that its tables show for MODEL on TASK in PART (at T = LENGTH):
        the rate that solved in the fewest updates, else the best final accuracy (None: not run)."""
        rows = [row for row in self.pooling.get(part, []) if row["task"] == task
                and row["model"] == model and (length is None or int(row["T"]) == length)]
        return POOLING_REPORT.best_run(rows) if rows else None

    def pooling_transfer(self, task, model, part="generalisation-markers"):
        """The best run's accuracy on its transfer set (the markers at positions not trained
        on), in %, with its Wilson 95 % interval over the POOLING_HELD_OUT sequences: {"value",
        "low", "high"} (None: not run)."""
        best = self.pooling_best(part, task, model)
        if best is None or best["transfer"] in ("-", ""):
            return None
        accuracy = float(best["transfer"].split(",")[0].rsplit(":", 1)[1])
        low, high = wilson(accuracy, POOLING_HELD_OUT)
        return {"value": 100 * accuracy, "low": 100 * low, "high": 100 * high}

    def pooling_updates(self, part, task, model, length):
        """Updates the best rate took to solve MODEL on TASK at T = LENGTH in PART (None: none
        solved, or not run)."""
        best = self.pooling_best(part, task, model, length)
        return int(best["steps_to_solve"]) if best and best["solved"] == "yes" else None
