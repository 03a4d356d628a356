"""scripts/run.sh, the README's first command, does only what the main job needs (issue 58 item
4): it installs the run set of packages (no Verilator, GoogleTest, pytest or Slurm), configures a
new build directory without the tests and the co-simulation, and builds the upswitch program
alone; scripts/test.sh's set stays complete. apt-get, dpkg-query and cmake are stand-ins on PATH
that record what they were asked, so nothing is installed or built here; the last test asks the
real CMake which compile steps the first run's build would take."""
from __future__ import annotations

import os
import shutil
import stat
import subprocess
from pathlib import Path

from conftest import REPO

RUN_SET = {"build-essential", "cmake", "pkg-config", "ccache", "libsystemc-dev", "libfmt-dev", "libyaml-cpp-dev",
           "libcli11-dev", "nlohmann-json3-dev", "libpng-dev", "libprotobuf-dev", "protobuf-compiler", "python3",
           "python3-matplotlib"}
TEST_ONLY = {"verilator", "libgtest-dev", "googletest", "python3-pytest", "python3-yaml", "slurmctld", "slurmd",
             "slurm-client", "munge"}


def stand_in(bin_dir: Path, name: str, body: str) -> None:
    p = bin_dir / name
    p.write_text("#!/bin/bash\n" + body + "\n")
    p.chmod(p.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)


def bare_machine(tmp_path: Path, installed: bool = False) -> dict:
    """An environment whose dpkg-query finds no package (or every one), whose apt-get and sudo
    record their arguments in tmp_path/calls, and whose cmake records its arguments and, asked to
    build, leaves an upswitch stand-in that writes the workload table plot_workload.py reads."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    calls = tmp_path / "calls"
    stand_in(bin_dir, "dpkg-query", 'echo -n "install ok installed"; exit 0' if installed else "exit 1")
    stand_in(bin_dir, "apt-get", f'echo "apt-get $*" >> {calls}')
    stand_in(bin_dir, "sudo", '"$@"')
    stand_in(bin_dir, "ccache", "exit 1")
    stand_in(bin_dir, "cmake", f'''echo "cmake $*" >> {calls}
if [ "$1" = -S ]; then mkdir -p "$4" && touch "$4/CMakeCache.txt"; exit 0; fi
dir=$2
cat > "$dir/upswitch" <<'UP'
#!/bin/bash
echo "upswitch $*" >> {calls}
mkdir -p results/default
printf 'workload,group,phase,start_cycle,end_cycle,time_us\\nmoe,-1,dispatch,0,1600,1.0\\n' > results/default/workload_phases.csv
UP
chmod +x "$dir/upswitch"''')
    env = dict(os.environ)
    env["PATH"] = f"{bin_dir}:{env['PATH']}"
    env.pop("UPSWITCH_BUILD_DIR", None)
    env.pop("UPSWITCH_EXTRA_PACKAGES", None)
    return env


def installs(tmp_path: Path) -> set:
    lines = [ln.split() for ln in (tmp_path / "calls").read_text().splitlines() if " install " in ln]
    assert len(lines) == 1, lines
    return {w for w in lines[0][1:] if not w.startswith("-") and w != "install"}


def test_setup_installs_the_run_set_for_the_main_job_and_everything_for_the_tests(tmp_path):
    env = bare_machine(tmp_path)
    r = subprocess.run([str(REPO / "scripts" / "setup.sh"), "run"], env=env, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert installs(tmp_path) == RUN_SET
    (tmp_path / "calls").unlink()
    r = subprocess.run([str(REPO / "scripts" / "setup.sh")], env=env, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert installs(tmp_path) == RUN_SET | TEST_ONLY
    r = subprocess.run([str(REPO / "scripts" / "setup.sh"), "tests"], env=env, capture_output=True, text=True)
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "'tests'" in r.stderr and "run, all" in r.stderr


def test_run_sh_configures_without_tests_and_builds_only_the_program(tmp_path):
    # A copy of scripts/ stands for the clone, so that results/ and build/ land in tmp_path.
    clone = tmp_path / "clone"
    shutil.copytree(REPO / "scripts", clone / "scripts")
    env = bare_machine(tmp_path, installed=True)
    r = subprocess.run([str(clone / "scripts" / "run.sh"), "--quiet"], env=env, capture_output=True, text=True,
                       cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    calls = (tmp_path / "calls").read_text().splitlines()
    configure = [c for c in calls if c.startswith("cmake -S")]
    build = [c for c in calls if c.startswith("cmake --build")]
    assert len(configure) == 1 and len(build) == 1, calls
    assert "-DUPSWITCH_TESTS=OFF" in configure[0].split() and "-DUPSWITCH_COSIM=OFF" in configure[0].split()
    assert build[0].split()[-2:] == ["--target", "upswitch"], build[0]
    assert any(c.startswith("upswitch workload --out results/default --quiet") for c in calls), calls
    assert (clone / "results" / "default" / "workload.png").exists()
    # Once build/ is configured (by test.sh, say), run.sh keeps that configuration.
    (tmp_path / "calls").unlink()
    r = subprocess.run([str(clone / "scripts" / "run.sh"), "--quiet"], env=env, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    configure = [c for c in (tmp_path / "calls").read_text().splitlines() if c.startswith("cmake -S")]
    assert len(configure) == 1 and "UPSWITCH_TESTS" not in configure[0] and "UPSWITCH_COSIM" not in configure[0]
    # test.sh turns both on, whatever a first run.sh configured.
    test_sh = (REPO / "scripts" / "test.sh").read_text()
    assert "scripts/build.sh -DUPSWITCH_TESTS=ON -DUPSWITCH_COSIM=ON" in test_sh


def test_the_first_runs_build_compiles_no_test_and_no_rtl(tmp_path):
    """The real CMake, configured as run.sh's first run configures it: no test and no RTL target
    exists, and `upswitch` depends on neither GoogleTest nor a verilated block."""
    build = tmp_path / "build"
    r = subprocess.run(["cmake", "-S", str(REPO), "-B", str(build), "-DUPSWITCH_TESTS=OFF", "-DUPSWITCH_COSIM=OFF",
                        "-DCMAKE_BUILD_TYPE=Release"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert not (build / "tests").exists() and not (build / "rtl_ref").exists() and not (build / "tb" / "cosim").exists()
    # What `upswitch` links, from CMake's own dependency graph: the model's libraries, no test
    # framework and no verilated block.
    r = subprocess.run(["cmake", f"--graphviz={tmp_path / 'deps.dot'}", str(build)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    deps = (tmp_path / "deps.dot.upswitch").read_text()
    assert "upswitch_model" in deps
    for word in ("gtest", "GTest", "verilat", "upsw_rtl", "cosim"):
        assert word not in deps, word
