#!/usr/bin/env python3
"""Tests of the report code only (bench/report.py's section splice,
bench/gpu/report.py's and bench/movement/report.py's tables), run by CTest as
bench.report: made-up results go through the real scripts into a temporary
RESULTS.md. The numbers are inputs of the test, never figures of any
machine."""
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
GPU_REPORT = os.path.join(HERE, "report.py")
CPU_REPORT = os.path.join(os.path.dirname(HERE), "report.py")
MOVEMENT_REPORT = os.path.join(os.path.dirname(HERE), "movement", "report.py")
BEGIN = "<!-- GPU section: written by bench/gpu/run.sh -->"
END = "<!-- end of the GPU section -->"
MOVEMENT_BEGIN = "<!-- data movement section: written by bench/movement/run.sh -->"
MOVEMENT_END = "<!-- end of the data movement section -->"


def result(bench, variant, median, check="ok", size="64-floats"):
    return (f"RESULT {bench} {variant} size={size} median_s={median} "
            f"min_s={median} max_s={median} reps=7 bytes=0 flops=0 "
            f"check={check} others=0%")


GPU_RESULTS = "\n".join([
    "BUSY round1-saxpy 0",
    result("saxpy", "cuda", 0.02),
    "KERNEL saxpy cuda saxpy launches=10 total_s=0.001",
    result("saxpy", "hpvm", 0.01),
    "KERNEL saxpy hpvm saxpy launches=10 total_s=0.004",
    "COHERENCE saxpy hpvm bytes=3145728 launches=4",
    result("saxpy", "cuda", 0.03),
    result("saxpy", "hpvm", 0.04),
    result("stencil", "cuda", 0.5, size="8x8,5-steps"),
    result("stencil", "hpvm", 0.25, check="FAIL", size="8x8,5-steps"),
    result("pipeline", "cuda", 0.1),
    result("pipeline", "hpvm", 0.1),
    "OFFGPU pipeline hpvm pipeline/blur cpu",
    result("launch", "cuda", 8e-6, size="2-instances"),
    result("launch", "hpvm", 1e-5, size="2-instances"),
    result("launch-raw", "cuda", 4e-6, size="empty-kernel,PTX"),
    "FAILED sgemm hpvm hpvm-rt: error: no cuda",
    "FAILED sgemm hpvm hpvm-rt: error: no cuda",
    result("sgemm", "cuda", 0.002),
    "NOTE something to say",
    "RUNTIME 42",
]) + "\n"

def moved(name, devices, size, minimum, borders, one, calls=6, check="ok",
          times="0.01,0.01,0.01,0.02,0.03"):
    return (f"MOVED {name} {devices} size={size} min_bytes={minimum} "
            f"border_bytes={borders} calls={calls} check={check} "
            f"times_s={times} bytes={one} total={one * calls} placed=ok")


MOVEMENT_RESULTS = "\n".join([
    "BUSY vulkan 3",
    moved("stencil", "vulkan", "4x5,3-steps", 320, 3 * 56, 3 * 160 + 3 * 56),
    moved("chain", "cpu,vulkan", "8-floats", 64, 0, 64),
    # two more runs of the same: the median of all 15 calls is 20 ms
    moved("chain", "cpu,vulkan", "8-floats", 64, 0, 64, times="0.02," * 4 + "0.03"),
    moved("chain", "cpu,vulkan", "8-floats", 64, 0, 64, times="0.05," * 4 + "0.03"),
    # 13n + the borders of two 4x5 grids: as the rules say
    moved("pipeline", "vulkan", "4x5", 260, 2 * 56, 260 + 2 * 56),
    # more than the rules say, and a wrong result
    moved("stencil-region", "vulkan", "4x5,3-steps", 320, 56, 999,
          check="FAIL"),
    moved("stencil-region", "vulkan", "4x5,3-steps", 320, 56, 998),
    "SKIPPED chain cpu,opencl hpvm-rt: 'opencl' has no device",
    "RUNTIME 5",
]) + "\n"

CPU_RESULTS = "\n".join([
    result("saxpy", "seq", 0.04), result("saxpy", "omp", 0.02),
    result("saxpy", "hpvm", 0.02), "RUNTIME 7"]) + "\n"


class ReportTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = self.tmp.name
        self.md = self.path("RESULTS.md")
        self.machine = self.path("machine.txt")
        self.write("machine.txt", "cpu: test\n")

    def tearDown(self):
        self.tmp.cleanup()

    def path(self, name):
        return os.path.join(self.dir, name)

    def write(self, name, text):
        with open(self.path(name), "w") as f:
            f.write(text)

    def read_md(self):
        with open(self.md) as f:
            return f.read()

    def run_script(self, *args):
        return subprocess.run([sys.executable, *args], check=True,
                              capture_output=True, text=True).stdout

    def gpu(self, results=GPU_RESULTS):
        self.write("gpu.txt", results)
        return self.run_script(GPU_REPORT, self.path("gpu.txt"),
                               self.machine, "bench/gpu/run.sh", self.md)

    def cpu(self):
        self.write("cpu.txt", CPU_RESULTS)
        return self.run_script(CPU_REPORT, self.path("cpu.txt"),
                               self.machine, "bench/run.sh", self.md)

    def movement(self, results=MOVEMENT_RESULTS):
        self.write("movement.txt", results)
        return self.run_script(MOVEMENT_REPORT, self.path("movement.txt"),
                               self.machine, "bench/movement/run.sh", self.md)

    def movement_section(self):
        text = self.read_md()
        self.assertEqual(text.count(MOVEMENT_BEGIN), 1)
        self.assertEqual(text.count(MOVEMENT_END), 1)
        return text[text.index(MOVEMENT_BEGIN):text.index(MOVEMENT_END)]

    def gpu_section(self):
        text = self.read_md()
        self.assertEqual(text.count(BEGIN), 1)
        self.assertEqual(text.count(END), 1)
        return text[text.index(BEGIN):text.index(END)]

    def row(self, section, start):
        rows = [line for line in section.splitlines()
                if line.startswith("| " + start)]
        self.assertEqual(len(rows), 1, f"one row starting with {start!r}")
        return [c.strip() for c in rows[0].strip("|").split("|")]

    def test_medians_take_the_best_round_and_ratio_is_cuda_over_hpvm(self):
        self.gpu()
        row = self.row(self.gpu_section(), "saxpy: y")
        # best rounds: CUDA 20 ms, HPVM 10 ms
        self.assertEqual(row[2:6], ["20 ms", "10 ms", "2.00×", "ok"])

    def test_failures_are_marked(self):
        self.gpu()
        section = self.gpu_section()
        self.assertIn("**FAIL**: hpvm FAIL", self.row(section, "stencil: 5")[5])
        self.assertIn("HPVM leaf pipeline/blur on cpu",
                      self.row(section, "pipeline: blur")[5])
        sgemm = self.row(section, "sgemm: C")
        self.assertEqual(sgemm[3], "–")
        self.assertIn("2 run(s) failed: hpvm-rt: error: no cuda", sgemm[5])
        self.assertEqual(sgemm[5].count("no cuda"), 1)
        self.assertIn("- **note**: something to say", section)

    def test_raw_launch_is_set_against_the_hpvm_launch(self):
        self.gpu()
        row = self.row(self.gpu_section(), "launch-raw:")
        self.assertEqual(row[2:5], ["4 µs", "10 µs", "0.40×"])

    def test_kernel_times_and_copies(self):
        self.gpu()
        section = self.gpu_section()
        # 1 ms / 10 launches against 4 ms / 10 launches
        self.assertEqual(self.row(section, "saxpy: saxpy")[1:5],
                         ["10 / 10", "100 µs", "400 µs", "0.25×"])
        # 3 MiB moved over 4 launches of the root
        self.assertEqual(self.row(section, "saxpy | x")[3], "768 KiB")

    def test_sections_keep_each_other(self):
        self.cpu()
        self.gpu()
        text = self.read_md()
        self.assertTrue(text.startswith("# Benchmark results"))
        self.assertIn("| saxpy: y = a x + y | 64 floats | 40 ms | 20 ms", text)
        self.gpu_section()
        # A second GPU report replaces its section; a CPU report keeps it.
        self.gpu(GPU_RESULTS.replace("median_s=0.01 ", "median_s=0.005 "))
        self.assertIn("4.00×", self.row(self.gpu_section(), "saxpy: y")[4])
        self.cpu()
        self.assertIn("4.00×", self.row(self.gpu_section(), "saxpy: y")[4])
        self.assertTrue(self.read_md().startswith("# Benchmark results"))
        self.assertEqual(self.read_md().count("# Benchmark results"), 1)

    def test_movement_table(self):
        self.movement()
        section = self.movement_section()
        self.assertEqual(self.row(section, "chain")[3:10],
                         ["64", "64", "1.000", "0", "0", "20 ms (15 in 3)",
                          "ok"])
        self.assertEqual(self.row(section, "pipeline")[3:8],
                         ["372", "260", "1.431", "112", "112"])
        region = self.row(section, "stencil-region")
        self.assertEqual(region[6], "679")
        self.assertIn("**FAIL**: wrong results; the runs moved 999, 998 "
                      "bytes per call", region[9])
        # rows by workload, whatever order they ran in
        self.assertLess(section.index("| chain"), section.index("| stencil |"))
        self.assertIn("**stencil-region** (", section)
        self.assertIn("**not exactly**: vulkan moved 999, the rules say 296",
                      section)
        self.assertIn("**pipeline** (", section)
        self.assertNotIn("**not exactly**", section.split("**pipeline**")[1]
                         .split("\n")[0])
        self.assertIn("- **skipped** on cpu,opencl (chain): hpvm-rt", section)

    def test_movement_smoke(self):
        self.write("movement.txt", MOVEMENT_RESULTS)
        run = subprocess.run([sys.executable, MOVEMENT_REPORT, "--smoke",
                              self.path("movement.txt")],
                             capture_output=True, text=True)
        self.assertEqual(run.returncode, 1)
        self.assertIn("stencil-region vulkan: wrong results", run.stdout)
        self.assertIn("above 1.01 × the minimum 320", run.stdout)
        good = "\n".join(l for l in MOVEMENT_RESULTS.splitlines()
                         if "stencil-region" not in l) + "\n"
        self.write("movement.txt", good)
        self.assertIn("note: skipped on cpu,opencl (chain)",
                      self.run_script(MOVEMENT_REPORT, "--smoke",
                                      self.path("movement.txt")))
        self.write("movement.txt", "SKIPPED chain cpu,vulkan no device\n")
        self.assertIn("SKIP: ", self.run_script(
            MOVEMENT_REPORT, "--smoke", self.path("movement.txt")))

    def test_three_reports_keep_each_other(self):
        self.movement()
        self.gpu()
        self.cpu()
        self.movement()
        text = self.read_md()
        self.assertTrue(text.startswith("# Benchmark results"))
        self.gpu_section()
        self.movement_section()
        # the CPU report, then data movement, then GPU
        self.assertLess(text.index("## Medians"), text.index(MOVEMENT_BEGIN))
        self.assertLess(text.index(MOVEMENT_END), text.index(BEGIN))
        self.gpu()
        self.assertLess(self.read_md().index(MOVEMENT_END),
                        self.read_md().index(BEGIN))

    def test_hpvm_not_built_or_not_run(self):
        for note, cell in (("not built: hpvm-clang has no nvptx target",
                            "not built"),
                           ("not run: hpvm-rt has no cuda device", "not run")):
            self.gpu("\n".join([f"NOTE HPVM side {note}",
                                result("saxpy", "cuda", 0.02)]) + "\n")
            section = self.gpu_section()
            self.assertEqual(self.row(section, "saxpy: y")[3:5], [cell, "–"])
            self.assertIn(f"- **note**: HPVM side {note}", section)

    def test_pending(self):
        self.cpu()
        self.run_script(GPU_REPORT, "--pending", "no GPU was lent", self.md)
        section = self.gpu_section()
        self.assertIn("No GPU figures yet: no GPU was lent.", section)
        self.assertTrue(self.read_md().startswith("# Benchmark results"))


if __name__ == "__main__":
    unittest.main()
