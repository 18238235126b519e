# What every study's workflow sets first, by include: bash for the shell rules, libgomp waiting
# passively (on a shared machine its spin-waiting starves a run, measured here: 200 target
# tokens/s beside builds, 1,800 passive; it changes the speed, never the numbers), and the
# config's paths read from the study's folder.
import os

from snakemake.exceptions import WorkflowError

shell.executable("bash")
SHELL_PREFIX = "set -euo pipefail; export OMP_WAIT_POLICY=${{OMP_WAIT_POLICY:-passive}}; "
shell.prefix(SHELL_PREFIX)


def study_path(path):
    """PATH of the config, relative to the study's folder (the Snakefile's), made absolute."""
    return os.path.normpath(os.path.join(workflow.basedir, os.path.expanduser(str(path))))
