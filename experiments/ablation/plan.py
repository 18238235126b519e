"""The ablation's plan as data (the Snakefile's reader of configs.tsv): the configurations, whose
learning-rate check sets each one's rate (rate_owners), the runs in their order (plan.tsv), the
rate each check chooses (lr-choice.tsv) and the rate a planned run resolves to. Only the Python
standard library; no file is written here.

configs.tsv's header gives the format: id, family ("F,G": F its own, G joined; "+G": G's
baseline), stage, seeds, hidden ('-': the study's), heed-train options ("--lr X": a rate fixed,
no check).

The rules kept from the bash driver this replaces (experiments/ablation/run.sh until issue 66):
  order     the stage "core" first, seed-major (round k gives every core configuration its k-th
            seed), the learning-rate check (seed 1 at LR × each of lr_factors) after round 1;
            then the other stages in the order they first appear, each seed-major, and after a
            stage's first round the checks of a rate carried to it (× transfer_factors)
  owners    a core configuration owns its check; any other runs at the rate of the core
            configuration with its --attention (its family's if there is one); at another hidden
            size at the rate of that core configuration's own model at this size (same options),
            whose check starts from the carried rate; a configuration with no core configuration
            of its --attention owns a check that starts from its family baseline's rate (with
            transfer_factors); --lr X in the options: that rate, no check, sets no other's
  choice    the rate of the lowest best validation perplexity among the check's runs (a failed
            run loses; the base rate on a tie, and while the check is unfinished)
"""
import re

ID = re.compile(r"^[a-z0-9][a-z0-9.-]*$")
FAMILY = re.compile(r"^\+?[a-z0-9][a-z0-9.-]*$")
NUMBER = re.compile(r"^[0-9]*\.?[0-9]+([eE]-?[0-9]+)?$")


class PlanError(Exception):
    """A configurations file or setting the plan cannot use (the message names it)."""


def rate(value):
    """VALUE as the driver wrote rates (awk's %g): 0.001, 0.0005, 0.008, 1e-05."""
    return "%g" % float(value)


def times(base, factor):
    return rate(float(base) * float(factor))


def option(options, name):
    """The value after NAME in the options string ("" for none)."""
    words = options.split()
    for i, word in enumerate(words[:-1]):
        if word == name:
            return words[i + 1]
    return ""


class Config:
    def __init__(self, fields, study_hidden):
        self.id, self.families, self.stage, self.seeds, hidden, self.options = fields
        self.hidden = study_hidden if hidden == "-" else int(hidden)
        own = self.families.split(",")[0]
        self.family = own[1:] if own.startswith("+") else own  # its own (runs.tsv's column)
        self.attention = option(self.options, "--attention")
        fixed = option(self.options, "--lr") if " --lr " in f" {self.options} " else ""
        self.fixed_lr = rate(fixed) if fixed else ""


def read_configs(path, study_hidden, only=()):
    """The configurations of PATH, checked, in the file's order (ONLY: just those ids)."""
    configs, seen, marked = [], set(), set()
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            fields = line.split("\t")
            fields += [""] * (6 - len(fields))
            cid, families, stage, seeds, hidden, options = fields[:6]
            if not cid:
                continue
            where = f"{path}: {cid}"
            if not ID.match(cid):
                raise PlanError(f"{path}: id '{cid}': lowercase letters, digits, '.', '-'")
            if not re.fullmatch(r"[1-9][0-9]*", seeds):
                raise PlanError(f"{where}: seeds '{seeds}' is not a count")
            if hidden != "-" and not re.fullmatch(r"[1-9][0-9]*", hidden):
                raise PlanError(f"{where}: hidden '{hidden}'")
            if not families or not stage:
                raise PlanError(f"{where}: needs a family and a stage")
            if not all(FAMILY.match(f) for f in families.split(",")):
                raise PlanError(f"{where}: family '{families}': names of lowercase letters, "
                                "digits, '.', '-', separated by ',', each '+' or not")
            if f" {options} ".find(" --lr ") >= 0:
                if stage == "core":
                    raise PlanError(f"{where}: a core configuration's rate is its check's: no --lr")
                if not NUMBER.match(option(options, "--lr")):
                    raise PlanError(f"{where}: --lr '{option(options, '--lr')}' is not a number")
            if cid in seen:
                raise PlanError(f"{path}: configurations named twice: {cid}")
            seen.add(cid)
            for family in families.split(","):
                if family.startswith("+"):
                    if family in marked:
                        raise PlanError(f"{path}: family '{family[1:]}' has two baselines marked '+'")
                    marked.add(family)
            configs.append(Config([cid, families, stage, int(seeds), hidden, options],
                                  study_hidden))
    for cid in only:
        if cid not in seen:
            raise PlanError(f"only: no configuration '{cid}' in {path}")
    if only:
        configs = [c for c in configs if c.id in only]
    return configs


class Plan:
    """The plan of CONFIGS (those heed-train accepts) for SETTINGS: lr, lr_factors,
    transfer_factors, seeds."""

    def __init__(self, configs, lr, lr_factors, transfer_factors, seeds):
        self.configs = configs
        self.by_id = {c.id: c for c in configs}
        self.lr = rate(lr)
        self.lr_factors = [str(f) for f in lr_factors]
        self.transfer_factors = [str(f) for f in transfer_factors]
        self.seeds = [int(s) for s in seeds]
        self._owners()
        self.rows = self._rows()

    # --- whose check sets each rate ------------------------------------------------------------
    def _owners(self):
        cs, check, transfer = self.configs, bool(self.lr_factors), bool(self.transfer_factors)
        base = {}
        for c in cs:
            base.setdefault(c.family, c)

        def counterpart(c):
            if not c.attention:
                return None
            return next((d for d in cs if d is not c and d.stage == "core"
                         and d.attention == c.attention and d.family == c.family), None)

        def core_of(c):
            if counterpart(c):
                return counterpart(c)
            if not c.attention:
                return None
            return next((d for d in cs if d.stage == "core" and d.attention == c.attention), None)

        def owner(c):
            if not check or c.fixed_lr:
                return None
            if c.stage == "core":
                return c
            k = core_of(c)
            if not k:
                b = base[c.family]
                if b is c:
                    return None
                return c if transfer and owner(b) else owner(b)
            if k.hidden == c.hidden or not transfer:
                return k
            return next((d for d in cs if d.hidden == c.hidden and d.options == k.options), k)

        def start(c):
            return core_of(c) or owner(base[c.family])

        self.owner, self.start, self.counterpart = {}, {}, {}
        for c in cs:
            o, k = owner(c), counterpart(c)
            self.owner[c.id] = o.id if o else None
            self.start[c.id] = start(c).id if o is c and c.stage != "core" else None
            self.counterpart[c.id] = k.id if k else None

    # --- the runs, in order ---------------------------------------------------------------------
    def _rows(self):
        """[(id, stage, seed, lr spec)]: a rate; "chosen" (its own check decides), "chosen:ID"
        (ID's check does), "chosen:ID*F" (ID's chosen rate × F)."""
        rows, seeds = [], self.seeds
        stages = []
        for c in self.configs:
            if c.stage != "core" and c.stage not in stages:
                stages.append(c.stage)
        for r in range(1, len(seeds) + 1):
            for c in self.configs:
                if c.stage == "core" and c.seeds >= r:
                    spec = "chosen" if self.owner[c.id] == c.id and r > 1 else self.lr
                    rows.append((c, c.stage, seeds[r - 1], spec))
            if r == 1:
                for c in self.configs:
                    if c.stage == "core":
                        for f in self.lr_factors:
                            rows.append((c, "lr-check", seeds[0], times(self.lr, f)))
        for s in stages:
            for r in range(1, len(seeds) + 1):
                for c in self.configs:
                    if c.stage != s or c.seeds < r:
                        continue
                    owner, start = self.owner[c.id], self.start[c.id]
                    if c.fixed_lr:
                        spec = c.fixed_lr
                    elif not owner:
                        spec = self.lr
                    elif start:
                        spec = f"chosen:{start}*1" if r == 1 else "chosen"
                    else:
                        spec = f"chosen:{owner}"
                    rows.append((c, s, seeds[r - 1], spec))
                if r != 1:
                    continue
                for c in self.configs:
                    if c.stage == s and self.start[c.id]:
                        for f in self.transfer_factors:
                            rows.append((c, "lr-check", seeds[0],
                                         f"chosen:{self.start[c.id]}*{f}"))
        return rows

    def table(self):
        """plan.tsv's text."""
        lines = ["order\tid\tfamily\tstage\tseed\tlr\thidden\toptions"]
        for n, (c, stage, seed, spec) in enumerate(self.rows, 1):
            lines.append("\t".join([str(n), c.id, c.families, stage, str(seed), spec,
                                    str(c.hidden), c.options]))
        return "\n".join(lines) + "\n"

    # --- the checks -----------------------------------------------------------------------------
    def check_owners(self):
        """The configurations that own a check, the core ones first (the others start from their
        choices), each with the configuration whose choice it starts from (None: LR)."""
        core = [c.id for c in self.configs if self.owner[c.id] == c.id and not self.start[c.id]]
        carried = [c.id for c in self.configs if self.owner[c.id] == c.id and self.start[c.id]]
        return [(i, None) for i in core] + [(i, self.start[i]) for i in carried]

    def check_factors(self, owner):
        return ["1"] + (self.transfer_factors if self.start[owner] else self.lr_factors)

    def check_units(self, owner, choice):
        """[(factor, lr)] of OWNER's check; CHOICE(id) gives a finished check's rate (None:
        unfinished), for a check that starts from another's."""
        start = self.start[owner]
        base = self.lr if not start else choice(start)
        if base is None:
            return None, []
        return base, [(f, times(base, f)) for f in self.check_factors(owner)]

    def resolve(self, cid, spec, choice):
        """The rate of plan spec SPEC for configuration CID; None while the check it waits for is
        unfinished. CHOICE(owner) gives a finished check's chosen rate."""
        if not spec.startswith("chosen"):
            return spec
        rest = spec[len("chosen"):].lstrip(":")
        owner, _, factor = rest.partition("*")
        chosen = choice(owner or cid)
        if chosen is None:
            return None
        return times(chosen, factor or "1")

    def family_ids(self, family):
        """The configurations of FAMILY: its baseline (the one naming it with '+', else the
        first) first, then the others in the file's order."""
        ids, base = [], None
        for c in self.configs:
            for f in c.families.split(","):
                if f == family or f == "+" + family:
                    ids.append(c.id)
                    if f.startswith("+"):
                        base = c.id
        if not ids:
            return []
        base = base or ids[0]
        return [base] + [i for i in ids if i != base]

    def families(self):
        seen = []
        for c in self.configs:
            for f in c.families.split(","):
                f = f.lstrip("+")
                if f not in seen:
                    seen.append(f)
        return seen

    def compared_lr(self, cid, choice):
        """The rate CID runs and is compared at: fixed, else its owner's choice, else LR."""
        c = self.by_id[cid]
        if c.fixed_lr:
            return c.fixed_lr
        owner = self.owner[cid]
        if owner:
            chosen = choice(owner)
            if chosen is not None:
                return chosen
        return self.lr


def choose(rows):
    """The check's rows [(factor, lr, best_val_ppl or "failed")]: the index of the chosen one (the
    first, the base rate, on a tie)."""
    best = 0
    for i in range(1, len(rows)):
        p, b = rows[i][2], rows[best][2]
        if p != "failed" and (b == "failed" or float(p) < float(b)):
            best = i
    return best
