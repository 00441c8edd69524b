"""How fast tracebacks are found in a training log, next to grep on the same file: run it, read it.

    python benchmarks/log_scan.py [LINES] [--appends N]

1. Writes a synthetic training log (tqdm bars redrawn with carriage returns, logging records) of
   LINES lines (default 200,000) with one traceback at the end, in a temporary directory.
2. Times our scan in this process (the file read as ``errknow-ls explain`` reads it: mapped in
   16 MiB windows by ``Capture`` and fed to ``TracebackScanner``; no process start) against
   ``grep -c Traceback``, ``grep -E -c 'Traceback|Error'`` and ``grep -n Traceback`` in subprocesses,
   with grep's start-up (the same command on an empty file) taken off.
   Every figure is the median of REPEAT runs (default 9), ours and grep's alike.
   The same again on the log repeated ten times, where grep's start-up is lost in the noise.
3. Appends 1 MiB to a watched log N times (default 20), feeding only the new bytes each time: the
   cost per append should stay flat while the file grows.

Prints throughput in MB/s and our share of grep's (the target is at least 1/3); nothing passes or fails.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from errknow_ls.tracebacks import Capture, Traceback, TracebackScanner

CHUNK = 1 << 20
REPEAT = 9
TRACEBACK = """\
Traceback (most recent call last):
  File "/home/user/project/train.py", line 88, in <module>
    main()
  File "/home/user/project/train.py", line 61, in main
    loss.backward()
  File "/opt/conda/lib/python3.11/site-packages/torch/_tensor.py", line 626, in backward
    torch.autograd.backward(
  File "/opt/conda/lib/python3.11/site-packages/torch/autograd/__init__.py", line 347, in backward
    _engine_run_backward(
  File "/opt/conda/lib/python3.11/site-packages/torch/autograd/graph.py", line 823, in _engine_run_backward
    return Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass
           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
RuntimeError: Trying to backward through the graph a second time (or directly access saved tensors after \
they have already been freed). Saved intermediate values of the graph are freed when you call .backward() \
or autograd.grad(). Specify retain_graph=True if you need to backward through the graph a second time or \
if you need to access saved tensors after calling backward.
"""


def training_lines(count: int, start: int = 0) -> list[str]:
    """tqdm bars (two to five redraws per line) and logging records, as a real run writes them."""
    lines = []
    for i in range(start, start + count):
        epoch, step = divmod(i, 1000)
        if i % 4 == 0:
            stamp = f"2024-05-{1 + epoch % 28:02d} 12:{step // 60 % 60:02d}:{step % 60:02d},{i % 1000:03d}"
            lines.append(f"{stamp} INFO trainer: epoch {epoch} step {step} loss {1 / (i + 1):.5f} lr 3e-4")
            continue
        redraws = []
        for k in range(2 + i % 4):
            done = (step + k) % 100
            bar = "█" * (done // 10) + " " * (10 - done // 10)
            redraws.append(
                f"\rEpoch {epoch}: {done:3d}%|{bar}| {done}/100 [00:{done % 60:02d}<00:30, 3.3it/s]"
            )
        lines.append("".join(redraws))
    return lines


def write_log(path: Path, lines: int) -> None:
    path.write_text("\n".join(training_lines(lines)) + "\n" + TRACEBACK, encoding="utf-8")


def scan_file(path: Path) -> list[Traceback]:
    scanner = TracebackScanner()
    found: list[Traceback] = []
    with path.open("rb") as stream:
        for chunk in Capture(stream):
            found += scanner.feed(chunk)
    return found + scanner.close()


def seconds(run: Callable[[], object]) -> float:
    started = time.perf_counter()
    run()
    return time.perf_counter() - started


def median_seconds(run: Callable[[], object], repeat: int) -> float:
    return statistics.median(seconds(run) for _ in range(repeat))


def grep(command: list[str], target: Path) -> Callable[[], object]:
    return lambda: subprocess.run([*command, str(target)], stdout=subprocess.DEVNULL, check=False)


def compare(path: Path, empty: Path, grep_path: str, repeat: int) -> None:
    """Our scan and each grep, interleaved round by round so that a load that comes and goes on a
    shared machine weighs on both; grep's start-up (its median on an empty file) is taken off."""
    size = path.stat().st_size / 1e6
    found = scan_file(path)
    assert len(found) == 1 and found[0].user_frame is not None, found
    commands = [
        [grep_path, "-c", "Traceback"],
        [grep_path, "-E", "-c", "Traceback|Error"],
        [grep_path, "-n", "Traceback"],
    ]
    ours: list[float] = []
    theirs: list[list[float]] = [[] for _ in commands]
    startup: list[list[float]] = [[] for _ in commands]
    for _ in range(repeat):
        ours.append(seconds(lambda: scan_file(path)))
        for command, full, empty_run in zip(commands, theirs, startup, strict=True):
            full.append(seconds(grep(command, path)))
            empty_run.append(seconds(grep(command, empty)))
    speed = size / statistics.median(ours)
    lines = found[0].end_line + 1
    print(f"\n{path.name}: {lines:,} lines, {size:.1f} MB; traceback at line {found[0].message_line + 1:,}")
    print(f"  (medians of {repeat} interleaved runs; grep less its median on an empty file)")
    print(f"  {'errknow-ls scan (in process)':34} {speed:8.0f} MB/s")
    for command, full, empty_run in zip(commands, theirs, startup, strict=True):
        grep_speed = size / max(statistics.median(full) - statistics.median(empty_run), 1e-9)
        label = " ".join(f"'{part}'" if "|" in part else part for part in command[1:])
        print(f"  {'grep ' + label:34} {grep_speed:8.0f} MB/s   ours/grep = {speed / grep_speed:.2f}")


def appends(directory: Path, count: int) -> None:
    """Append 1 MiB at a time to a log; after each append read only the new bytes."""
    log = directory / "watched.log"
    log.write_bytes(b"")
    block = ("\n".join(training_lines(12_000)) + "\n").encode()[:CHUNK]
    block = block[: block.rfind(b"\n") + 1]
    scanner = TracebackScanner()
    offset = 0
    costs = []
    rereads = []
    for i in range(count):
        with log.open("ab") as out:
            out.write(block if i < count - 1 else block + TRACEBACK.encode())
        started = time.perf_counter()
        with log.open("rb") as stream:
            stream.seek(offset)
            new = stream.read()
        offset += len(new)
        found = scanner.feed(new)
        costs.append(time.perf_counter() - started)
        rereads.append(median_seconds(lambda: scan_file(log), repeat=1))
    found += scanner.close()
    mb = len(block) / 1e6
    head, tail = statistics.mean(costs[:5]), statistics.mean(costs[-6:-1])
    print(f"\nappending {mb:.2f} MB to a watched log {count} times (file grows to {offset / 1e6:.0f} MB):")
    print(
        f"  read + scan of the appended bytes: first five {head * 1e3:.2f} ms, last five {tail * 1e3:.2f} ms"
    )
    print(f"  ratio last/first {tail / head:.2f} (flat = cost follows the appended bytes, not the file)")
    first, last = rereads[0] * 1e3, rereads[-1] * 1e3
    print(f"  re-reading the whole file instead: first {first:.1f} ms, last {last:.1f} ms")
    print(f"  traceback found after the last append: {len(found) == 1}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("lines", nargs="?", type=int, default=200_000)
    parser.add_argument("--appends", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=REPEAT, help="runs per median")
    args = parser.parse_args()
    grep = shutil.which("grep")
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp)
        log = directory / "train.log"
        write_log(log, args.lines)
        empty = directory / "empty.log"
        empty.write_bytes(b"")
        if grep is None:
            print("grep not found: our throughput only")
            print(
                f"{log.stat().st_size / 1e6 / median_seconds(lambda: scan_file(log), args.repeat):.0f} MB/s"
            )
        else:
            compare(log, empty, grep, args.repeat)
            large = directory / "train-x10.log"
            body = log.read_bytes().split(b"Traceback (most recent call last)")[0]
            large.write_bytes(body * 10 + log.read_bytes()[len(body) :])
            compare(large, empty, grep, args.repeat)
        appends(directory, args.appends)


if __name__ == "__main__":
    main()
