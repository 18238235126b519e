# What every study's workflow sets first, by include: bash for the shell rules, libgomp waiting
# passively (on a shared machine its spin-waiting starves a run, measured here: 200 target
# tokens/s beside builds, 1,800 passive; it changes the speed, never the numbers), and the
# config's paths read from the study's folder.
import os

from snakemake.exceptions import WorkflowError

shell.executable("bash")
SHELL_PREFIX = "set -euo pipefail; export OMP_WAIT_POLICY=${{OMP_WAIT_POLICY:-passive}}; "
shell.prefix(SHELL_PREFIX)


def resume_or_start(name):
    """The shell lines that ready heed-train's folder $dir: a training with a checkpoint resumes
    from it ($resume is --resume; NAME says so), one without starts again in an empty folder."""
    return f"""resume=
        if [ -f $dir/checkpoint.heed ]; then
          resume=--resume
          echo "{name}: resuming from its checkpoint" >&2
        else
          rm -rf $dir
          mkdir -p $dir
        fi
        """


def study_path(path):
    """PATH of the config, relative to the study's folder (the Snakefile's), made absolute."""
    return os.path.normpath(os.path.join(workflow.basedir, os.path.expanduser(str(path))))
