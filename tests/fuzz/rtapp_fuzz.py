#!/usr/bin/python3
"""Fuzz tools/rtapp, the rt-app JSON reader (a Python program, so no
libFuzzer): mutate the JSON of tools/rtapp-examples/*.json, rt-app's own
examples (Debian's rt-app package: build/outside/rt-app/examples, when
make outside has unpacked them) and tests/fuzz/corpus/rtapp/*.json,
structurally (values, keys, duplicates, cloned tasks and phases, every
event of the grammar, comments, trailing commas) and byte by byte, and run
the tool in-process on each mutant with a random choice of its options.

Checked, from the tool's docstring:
  - the exit status is 0 or 2, never a Python traceback (an exception other
    than SystemExit escaping main());
  - status 2 comes with exactly one "rtapp: error: ..." line on stderr;
  - status 0 prints the commands: "rtapp clear", then "rtapp add NAME ..."
    each followed by the "rtapp phase NAME ..." lines that continue it,
    within the kernel limits the tool promises to check (32 specs, 64
    instances in all, 512 phases and 4096 events in all, at least one
    event a phase, items of include/kernel/apps/rtapp_prog.h with their ranges:
    16 timers, 32 mutexes and conditions, 16 barriers and semaphores, fork
    targets among the specs, events up to 100 s, nice -20..19, policies
    p=f|r<1..99> for a task and pf|pr<1..99> for a phase, names of
    1..11 [A-Za-z0-9_.-], unique; each command at most 255 characters and
    16 words), then "rtapp run MS" with MS <= 600000 [log=N <= 64]; one
    "; "-joined line, or one command per line with --lines.

  tests/fuzz/rtapp_fuzz.py --seconds 60 [--out build/fuzz/artifacts/rtapp] [--seed N]
  tests/fuzz/rtapp_fuzz.py --regress [FILE|DIR ...]   (default: the corpus)

Failing inputs are written to --out as rtapp-<sha1>.json with the reason in
rtapp-<sha1>.txt. Exit status 1 if any input failed, 0 otherwise.
"""
import argparse
import contextlib
import hashlib
import importlib.machinery
import importlib.util
import io
import json
import os
import random
import re
import sys
import tempfile
import time
import traceback

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOOL = os.path.join(ROOT, "tools", "rtapp")
CORPUS = os.path.join(ROOT, "tests", "fuzz", "corpus", "rtapp")
EXAMPLES = os.path.join(ROOT, "tools", "rtapp-examples")
UPSTREAM = os.path.join(ROOT, "build", "outside", "rt-app", "examples")  # make outside


def load_tool():
    loader = importlib.machinery.SourceFileLoader("rtapp_tool", TOOL)
    spec = importlib.util.spec_from_loader("rtapp_tool", loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


# ------------------------------------------------------------ checking

NAME = re.compile(r"[A-Za-z0-9_.\-]{1,11}\Z")
NUM = r"(-?\d+)"


class Bad(Exception):
    pass


ITEM = [
    (re.compile(r"[rRs](\d+)\Z"), lambda m: int(m.group(1)) <= 100000000),
    (re.compile(r"[tT](\d+):[gu](\d+)\Z"), lambda m: int(m.group(1)) <= 100000000 and int(m.group(2)) < 16),
    (re.compile(r"[lu](\d+)\Z"), lambda m: int(m.group(1)) < 32),
    (re.compile(r"[wy](\d+):(\d+)\Z"), lambda m: int(m.group(1)) < 32 and int(m.group(2)) < 32),
    (re.compile(r"[gG](\d+)\Z"), lambda m: int(m.group(1)) < 32),
    (re.compile(r"[bPV](\d+)\Z"), lambda m: int(m.group(1)) < 16),
    (re.compile(r"Y\Z"), lambda m: True),
    (re.compile(r"f(\d+)\Z"), lambda m: int(m.group(1)) < 32),
    (re.compile(r"(?:k[wrc]|i)(\d+)\Z"), lambda m: int(m.group(1)) <= 100000000),
]


def check_items(word, ph, state, cmd):
    """The items of one phase word into @ph: [events]; option items first only."""
    for item in word.split(","):
        if re.match(r"x(-1|[1-9]\d*)\Z", item) or (re.match(r"n-?\d+\Z", item) and -20 <= int(item[1:]) <= 19):
            continue
        if re.match(r"p[fr][1-9]\d?\Z", item):
            continue
        if re.match(r"m0x[0-9a-f]+\Z", item) and 0 < int(item[3:], 16) < 1 << 32:
            continue
        for rx, ok in ITEM:
            m = rx.match(item)
            if m:
                if not ok(m):
                    raise Bad("item %r out of range in %s" % (item, cmd))
                ph[0] += 1
                state["events"] += 1
                if item[0] == "f":
                    state["forks"].append(int(item[1:]))
                break
        else:
            raise Bad("bad phase item %r in %s" % (item, cmd))


def check_command(cmd, state):
    words = cmd.split(" ")
    if len(cmd) > 255 or len(words) > 16:
        raise Bad("command over the shell limits (%d chars, %d words): %s" % (len(cmd), len(words), cmd))
    if words[:2] == ["rtapp", "phase"]:
        if len(words) < 4 or not state["names"] or words[2] != state["names"][-1]:
            raise Bad("'rtapp phase' not continuing the last spec: %s" % cmd)
        rest = words[3:]
    elif words[:2] == ["rtapp", "add"] and len(words) >= 4:
        if not NAME.match(words[2]) or words[2] in state["names"]:
            raise Bad("bad or repeated task name %r" % words[2])
        state["names"].append(words[2])
        state["phases_of"].append([])
        inst, rest = 1, []
        for i, w in enumerate(words[3:]):
            m = re.match(r"([ilnmdp])=(.*)\Z", w)
            if not m:
                rest = words[3 + i:]
                break
            k, v = m.groups()
            if k == "p":
                if not re.match(r"(o|[fr][1-9]\d?)\Z", v):
                    raise Bad("bad policy %r in %s" % (w, cmd))
                continue
            if k == "m":
                if not re.match(r"0x[0-9a-f]+\Z", v) or int(v, 16) == 0 or int(v, 16) >> 32:
                    raise Bad("bad mask %r in %s" % (w, cmd))
                continue
            if not re.match(r"-?\d+\Z", v):
                raise Bad("bad number %r in %s" % (w, cmd))
            n = int(v)
            if (k == "i" and not 0 <= n <= 64) or (k == "n" and not -20 <= n <= 19) or \
               (k == "d" and not 0 <= n <= 100000000) or (k == "l" and n < -1):
                raise Bad("%s out of range in %s" % (w, cmd))
            if k == "i":
                inst = n
        state["instances"] += inst
    else:
        raise Bad("not an 'rtapp add' or 'rtapp phase' command: %s" % cmd)
    for w in rest:
        phases = state["phases_of"][-1]
        if w.startswith("+"):
            if not phases:
                raise Bad("'+' continues no phase in %s" % cmd)
            check_items(w[1:], phases[-1], state, cmd)
        else:
            phases.append([0])
            check_items(w, phases[-1], state, cmd)


def check_output(out, lines_mode):
    text = out.rstrip("\n")
    if lines_mode:
        cmds = text.split("\n")
    else:
        if "\n" in text:
            raise Bad("more than one output line without --lines")
        cmds = text.split("; ")
    if not cmds or cmds[0] != "rtapp clear":
        raise Bad("output does not start with 'rtapp clear': %r" % text[:80])
    m = re.match(r"rtapp run (\d+)( log=(\d+))?\Z", cmds[-1])
    if not m or int(m.group(1)) > 600000 or (m.group(3) and not 1 <= int(m.group(3)) <= 64):
        raise Bad("bad last command %r" % cmds[-1])
    state = {"names": [], "phases_of": [], "instances": 0, "events": 0, "forks": []}
    for c in cmds[1:-1]:
        check_command(c, state)
    nspecs = len(state["names"])
    nphases = sum(len(p) for p in state["phases_of"])
    if not 1 <= nspecs <= 32 or state["instances"] > 64 or nphases > 512 or state["events"] > 4096:
        raise Bad("%d specs, %d instances, %d phases, %d events" % (nspecs, state["instances"], nphases,
                                                                    state["events"]))
    for name, phases in zip(state["names"], state["phases_of"]):
        if not phases or any(ph[0] == 0 for ph in phases):
            raise Bad("task %s: a phase without events (or no phase)" % name)
    if any(f >= nspecs for f in state["forks"]):
        raise Bad("a fork of a spec that does not exist: %s" % state["forks"])


def run_one(tool, data, argv_extra, tmpdir):
    """Run the tool on @data (bytes) with @argv_extra; None if fine, else why."""
    path = os.path.join(tmpdir, "in.json")
    with open(path, "wb") as f:
        f.write(data)
    out, err = io.StringIO(), io.StringIO()
    status = None
    tb = None
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = tool.main(argv_extra + [path])
        except SystemExit as e:
            status = e.code
        except BaseException as e:  # noqa: BLE001 - any escaping exception is the finding
            tb = traceback.format_exc()
            frames = [f for f in traceback.extract_tb(e.__traceback__) if f.filename == TOOL]
            where = "tools/rtapp:%d" % frames[-1].lineno if frames else "?"
            tb = "%s in %s (innermost tools/rtapp frame)\n%s" % (type(e).__name__, where, tb)
    if tb is not None:
        return "traceback (args %s):\n%s" % (argv_extra, tb)
    if status not in (0, 2):
        return "exit status %r (args %s)" % (status, argv_extra)
    if "Traceback" in err.getvalue():
        return "traceback text on stderr (args %s):\n%s" % (argv_extra, err.getvalue())
    if status == 2:
        errors = [l for l in err.getvalue().splitlines() if not l.startswith("rtapp: note:")]
        if len(errors) != 1 or not errors[0].startswith(("rtapp: error: ", "usage: ", "rtapp: error:")):
            if not (errors and errors[0].startswith("usage:")):
                return "exit status 2 without exactly one error line (args %s): %r" % (argv_extra, errors)
        return None
    try:
        check_output(out.getvalue(), "--lines" in argv_extra)
    except Bad as e:
        return "status 0 but %s (args %s)" % (e, argv_extra)
    return None


# ------------------------------------------------------------ mutating

class O:
    """JSON object as ordered pairs (duplicates kept)."""

    def __init__(self, pairs):
        self.pairs = [list(p) for p in pairs]


def parse(tool, text):
    """Read as the tool does (json-c's leniency), as O trees."""
    def conv(v):
        if isinstance(v, tool.Obj):
            return O([[k, conv(x)] for k, x in v.pairs])
        if isinstance(v, list):
            return [conv(x) for x in v]
        return v
    return conv(tool.Lenient(text).document())


KEYS = ["run", "run0", "run1", "runtime", "runtime0", "sleep", "sleep1", "timer", "timer0", "lock", "unlock",
        "wait", "signal", "broad", "sync", "barrier", "suspend", "resume", "mem", "memrun", "iorun", "yield", "fork",
        "sem_post", "sem_wait", "lock1", "resume2", "type", "count", "size", "mutex", "loop", "instance", "instances",
        "cpus", "priority", "nice", "policy", "delay", "phases", "duration", "default_policy", "calibration",
        "dl-runtime", "util_min", "taskgroup", "tasks", "global", "resources", "ref", "period", "mode", "x",
        "", "p0", "task with space", "\u00e9t\u00e9", "a" * 40]
STRINGS = ["SCHED_OTHER", "SCHED_BATCH", "SCHED_IDLE", "SCHED_FIFO", "SCHED_RR", "SCHED_DEADLINE", "unique",
           "unique1", "shared", "relative", "absolute", "", "CPU0", "x" * 300, "\u00e9", "\\", "\"", "\n", "read",
           "write", "chase", "/", "/tg1", "m", "c", "thread0", "thread1", "task0", "t"]
INTS = [-2**63, -21, -20, -2, -1, 0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 19, 20, 31, 32, 33, 600, 601, 1000,
        16000, 100000000, 100000001, 600000, 2**31 - 1, 2**31, 2**32, 10**30]


def rand_value(r, depth=0):
    k = r.random()
    if k < 0.45:
        return r.choice(INTS) if r.random() < 0.7 else r.randint(-10**6, 10**6)
    if k < 0.6:
        return r.choice(STRINGS)
    if k < 0.68:
        return r.choice([True, False, None, 1.5, -0.0, float("inf")])
    if k < 0.8 or depth > 2:
        return [r.choice(INTS[3:14]) for _ in range(r.randint(0, 4))] if r.random() < 0.8 else \
            [rand_value(r, depth + 1)]
    return O([[r.choice(KEYS), rand_value(r, depth + 1)] for _ in range(r.randint(0, 3))])


def nodes(v, acc):
    """Every container (list or O) in @v."""
    if isinstance(v, O):
        acc.append(v)
        for p in v.pairs:
            nodes(p[1], acc)
    elif isinstance(v, list):
        acc.append(v)
        for x in v:
            nodes(x, acc)
    return acc


def clone(v):
    if isinstance(v, O):
        return O([[k, clone(x)] for k, x in v.pairs])
    if isinstance(v, list):
        return [clone(x) for x in v]
    return v


def mutate_tree(r, root):
    for _ in range(r.randint(1, 4)):
        ns = nodes(root, [])
        if not ns:
            return rand_value(r)
        n = r.choice(ns)
        op = r.random()
        if isinstance(n, O):
            if n.pairs and op < 0.35:
                r.choice(n.pairs)[1] = rand_value(r)
            elif op < 0.55:
                n.pairs.insert(r.randint(0, len(n.pairs)), [r.choice(KEYS), rand_value(r)])
            elif n.pairs and op < 0.7:
                del n.pairs[r.randrange(len(n.pairs))]
            elif n.pairs and op < 0.85:
                p = r.choice(n.pairs)
                for i in range(r.choice([1, 1, 2, 8, 20])):
                    name = p[0] if r.random() < 0.3 else "%s%d" % (p[0], i)
                    n.pairs.append([name, clone(p[1])])
            elif n.pairs:
                p = r.choice(n.pairs)
                p[0] = r.choice(KEYS) if r.random() < 0.7 else p[0] + r.choice(["0", "_x", " y", "\u00e9"])
        else:
            if n and op < 0.5:
                n[r.randrange(len(n))] = rand_value(r)
            elif op < 0.8:
                n.insert(r.randint(0, len(n)), rand_value(r))
            elif n:
                del n[r.randrange(len(n))]
    return root


def dump(r, v, depth=0):
    ws = r.choice(["", " ", "\n", "\t", " /* c */ ", "// c\n"]) if r.random() < 0.1 else ""
    trail = "," if r.random() < 0.1 else ""    # json-c takes a trailing comma
    if isinstance(v, O):
        return "{" + ws + ",".join("%s:%s" % (json.dumps(k), dump(r, x, depth + 1)) for k, x in v.pairs) + \
            (trail if v.pairs else "") + "}"
    if isinstance(v, list):
        return "[" + ws + ",".join(dump(r, x, depth + 1) for x in v) + (trail if v else "") + "]"
    if isinstance(v, float) and v == float("inf"):
        return r.choice(["1e400", "Infinity", "-Infinity", "NaN"])
    return json.dumps(v)


def mutate_bytes(r, data):
    b = bytearray(data)
    for _ in range(r.randint(1, 6)):
        op = r.random()
        pos = r.randint(0, len(b))
        if op < 0.3 and b:
            b[min(pos, len(b) - 1)] = r.randrange(256)
        elif op < 0.55:
            b[pos:pos] = r.choice([b"/*", b"*/", b"//", b"\"", b"{", b"}", b"[", b"]", b",", b":", b"\\",
                                   b"\xff", b"\xc3\xa9", b"0", b"-", b"1e9", b"9" * 30, b"\x00"])
        elif op < 0.8 and b:
            del b[pos:pos + r.randint(1, 16)]
        elif op < 0.9:
            b = b[:pos]
        else:
            b[pos:pos] = b"9" * r.choice([100, 4400, 5000])
    return bytes(b)


def random_args(r):
    a = []
    if r.random() < 0.4:
        a.append("--lines")
    if r.random() < 0.4:
        a += ["--duration-ms", str(r.choice([0, 1, 1000, 600000, 600001, -1, r.randint(0, 5000)]))]
    if r.random() < 0.3:
        a += ["--log", str(r.choice([0, 1, 32, 64, 65, -1]))]
    return a


def seeds():
    out = []
    for d in (EXAMPLES, UPSTREAM, CORPUS):
        if os.path.isdir(d):
            for n in sorted(os.listdir(d)):
                p = os.path.join(d, n)
                if os.path.isfile(p) and n.endswith(".json") or d == CORPUS and os.path.isfile(p) and \
                        not n.startswith("."):
                    with open(p, "rb") as f:
                        out.append(f.read())
    return out


def save(outdir, data, why):
    os.makedirs(outdir, exist_ok=True)
    h = hashlib.sha1(data).hexdigest()
    with open(os.path.join(outdir, "rtapp-%s.json" % h), "wb") as f:
        f.write(data)
    with open(os.path.join(outdir, "rtapp-%s.txt" % h), "w") as f:
        f.write(why + "\n")
    return h


def fuzz(tool, seconds, outdir, seed):
    r = random.Random(seed)
    pool = seeds()
    if not pool:
        print("rtapp_fuzz: no seeds", file=sys.stderr)
        return 1
    parsed = []
    for s in pool:
        try:
            parsed.append(parse(tool, s.decode("utf-8")))
        except (ValueError, UnicodeDecodeError, tool.JsonError):
            pass
    found = {}
    execs = 0
    end = time.monotonic() + seconds
    with tempfile.TemporaryDirectory() as tmp:
        while time.monotonic() < end:
            if parsed and r.random() < 0.75:
                tree = mutate_tree(r, clone(r.choice(parsed)))
                data = dump(r, tree).encode("utf-8", "surrogatepass")
                if r.random() < 0.15:
                    data = mutate_bytes(r, data)
            else:
                data = mutate_bytes(r, r.choice(pool))
            args = random_args(r)
            why = run_one(tool, data, args, tmp)
            execs += 1
            if why is None:
                continue
            # One report per kind of failure: the exception and where, or the message without numbers.
            key = re.sub(r"\d+", "N", why.splitlines()[0] if why.startswith("traceback") and "\n" in why
                         else why)[:160]
            if why.startswith("traceback"):
                key = why.splitlines()[1]
            if key not in found:
                found[key] = save(outdir, data, why)
                print("rtapp_fuzz: FAILURE %s -> %s/rtapp-%s.json" % (key, outdir, found[key]))
    print("rtapp_fuzz: %d execs in %d s (%.0f/s), %d distinct failures" % (execs, seconds, execs / max(seconds, 1),
                                                                         len(found)))
    return 1 if found else 0


def regress(tool, paths):
    files = []
    for p in paths or [CORPUS]:
        if os.path.isdir(p):
            files += [os.path.join(p, n) for n in sorted(os.listdir(p)) if not n.startswith(".")
                      and os.path.isfile(os.path.join(p, n))]
        else:
            files.append(p)
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        for path in files:
            with open(path, "rb") as f:
                data = f.read()
            for args in ([], ["--lines", "--duration-ms", "1000"]):
                why = run_one(tool, data, args, tmp)
                if why:
                    bad += 1
                    print("rtapp_fuzz: %s: %s" % (os.path.relpath(path, ROOT), why))
    print("rtapp_fuzz: %d inputs, %d failures" % (len(files), bad))
    return 1 if bad or not files else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=float, default=60)
    ap.add_argument("--out", default=os.path.join(ROOT, "build", "fuzz", "artifacts", "rtapp"))
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--regress", action="store_true")
    ap.add_argument("paths", nargs="*")
    a = ap.parse_args()
    if not os.path.exists(TOOL):
        print("rtapp_fuzz: no tools/rtapp", file=sys.stderr)
        return 2
    tool = load_tool()
    if a.regress:
        return regress(tool, a.paths)
    seed = a.seed if a.seed is not None else int(time.time())
    print("rtapp_fuzz: seed %d" % seed)
    return fuzz(tool, a.seconds, a.out, seed)


if __name__ == "__main__":
    sys.exit(main())
