#!/usr/bin/python3
"""The systems of "heed beside Marian" (systems.yaml beside this file), read in one place.

    python3 bench/peers/marian/systems.py SYSTEM [--recipe YAML] [--no-dropout]

prints SYSTEM's model options, one a line (for bash's mapfile): Marian's architecture, or heed's
as the Multi30k recipe's model_options (experiments/common/multi30k.yaml, or YAML) followed by the
system's own; --no-dropout leaves the recipe's --dropout out (the speed bench trains without).
experiments/marian/Snakefile imports read_systems and heed_model_options.

Debian's /usr/bin/python3 with python3-yaml (a dependency of snakemake).
"""
import argparse
import pathlib
import re
import shlex

import yaml

HERE = pathlib.Path(__file__).resolve().parent
SYSTEMS = HERE / "systems.yaml"
RECIPE = HERE.parents[2] / "experiments" / "common" / "multi30k.yaml"


def read_systems(path=SYSTEMS):
    """{system: its options (a string)}, in the file's order."""
    systems = yaml.safe_load(pathlib.Path(path).read_text(encoding="utf-8"))
    return {str(name): str(options or "") for name, options in systems.items()}


def is_heed(system):
    return system.startswith("heed-")


def heed_model_options(system, recipe_model_options, dropout=True, systems=None):
    """heed's model options of SYSTEM: the recipe's (its --dropout X left out unless DROPOUT),
    then the system's own."""
    own = (systems or read_systems())[system]
    recipe = str(recipe_model_options or "")
    if not dropout:
        recipe = re.sub(r"--dropout(=|\s+)\S+", "", recipe)
    return " ".join(f"{recipe} {own}".split())


def main():
    systems = read_systems()
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("system", choices=list(systems))
    parser.add_argument("--recipe", default=str(RECIPE), help="the recipe's settings (YAML)")
    parser.add_argument("--no-dropout", action="store_true", help="without the recipe's --dropout")
    args = parser.parse_args()
    options = systems[args.system]
    if is_heed(args.system):
        recipe = yaml.safe_load(pathlib.Path(args.recipe).read_text(encoding="utf-8"))
        options = heed_model_options(args.system, recipe.get("model_options"),
                                     dropout=not args.no_dropout, systems=systems)
    print("\n".join(shlex.split(options)))


if __name__ == "__main__":
    main()
