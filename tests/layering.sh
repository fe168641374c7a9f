#!/usr/bin/env bash
# tests/layering.sh SRC_DIR -- the layers of src/ (docs/design.md,
# "Layers"): a file may include headers of its own room and of rooms in
# lower layers, never of a room above it.  Each room's layer is in the
# table below.  Prints each offending include with its file, line and
# rule, and any cycle between rooms; status 1 on either.  Also kept: no
# file outside src/transport/ includes a network transport's own header
# (src/transport/<name>/, every <name> but shm): those are reached through
# src/transport/transport.h.
set -uo pipefail
src=${1:?usage: layering.sh SRC_DIR}
exec /usr/bin/env python3 - "$src" <<'PY'
import os, re, sys
src = sys.argv[1]
# Layers, bottom up (a fraction orders rooms inside one layer).
LAYERS = {
    # 0 base: the library's identity
    "identity": 0.0,
    # 1 the context, errors, environment, progress, events, endpoints;
    #   then MACs and random bytes, which end the process through the
    #   core's errors
    "core": 1.0, "sec": 1.1,
    # 2 how a rank learns its job
    "bootstrap": 2.0,
    # 3 substrates: the transport interface, shared memory, the network
    #   transports, device memory; the factory that starts a transport
    "transport": 3.0, "transport/shm": 3.1, "transport/sock": 3.2, "transport/ofi": 3.2,
    "transport/start": 3.5, "mk": 3.6,
    # 4 protocols, in the order they may use each other
    "am": 4.0, "rma": 4.1, "atomic": 4.2, "vis": 4.3, "coll": 4.4,
    # 5 the objects of the API that start and join every layer below:
    #   the client, segments, teams
    "objects": 5.0,
    # 6 on top of the public API: the GASNet-1 layer, the tools API and the
    #   self-test of a running job
    "legacy": 6.0, "tools": 6.1, "diagnostics": 6.2,
    # 7 client libraries over the public API: they include no header of
    #   another room at all (only <gasnetex.h> and the other public ones)
    "shmem": 7.0,
}
CLIENTS = {"shmem"}
NAMES = {0: "base", 1: "core", 2: "bootstrap", 3: "substrates", 4: "protocols", 5: "objects",
         6: "compatibility", 7: "clients"}

def room_of(rel):
    parts = rel.split("/")
    if parts[0] == "transport" and len(parts) > 2:
        return "transport/" + parts[1]
    return parts[0]

def layer_of(rel):
    return LAYERS.get(room_of(rel))

bad, unknown = [], set()
edges = {}
for d, _, files in os.walk(src):
    for f in sorted(files):
        if not f.endswith((".c", ".h")):
            continue
        path = os.path.join(d, f)
        rel = os.path.relpath(path, src)
        me = layer_of(rel)
        if me is None:
            unknown.add(room_of(rel))
            continue
        for n, line in enumerate(open(path, errors="replace"), 1):
            m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
            if not m or "/" not in m.group(1):
                continue
            inc = m.group(1)
            if not os.path.exists(os.path.join(src, inc)):
                continue
            them = layer_of(inc)
            if them is None:
                unknown.add(room_of(inc))
                continue
            if room_of(inc) != room_of(rel):
                edges.setdefault(room_of(rel), set()).add(room_of(inc))
            if room_of(rel) in CLIENTS and room_of(inc) != room_of(rel):
                bad.append(f"{rel}:{n}: includes {inc}: {room_of(rel)} is a client library "
                           f"of the public API and includes no header of another room")
                continue
            net = room_of(inc).startswith("transport/") and room_of(inc) != "transport/shm"
            if net and not rel.startswith("transport/"):
                bad.append(f"{rel}:{n}: includes {inc}: a network transport's own header is "
                           f"included only inside src/transport/ (the rest reaches it through "
                           f"transport/transport.h)")
                continue
            if them <= me or room_of(inc) == room_of(rel):
                continue
            bad.append(f"{rel}:{n}: includes {inc}: {room_of(rel)} (layer {NAMES[int(me)]}) "
                       f"may not include {room_of(inc)} (layer {NAMES[int(them)]}, above it)")

status = 0
if unknown:
    print("layering: FAIL: rooms with no layer in tests/layering.sh: " + ", ".join(sorted(unknown)))
    status = 1
if bad:
    print("layering: FAIL: includes that go up a layer:")
    print("\n".join(bad))
    status = 1

# Cycles between rooms (strongly connected components of the room graph).
index, low, stack, on, sccs, counter = {}, {}, [], set(), [], [0]
def visit(v):
    index[v] = low[v] = counter[0]; counter[0] += 1
    stack.append(v); on.add(v)
    for w in edges.get(v, ()):
        if w not in index:
            visit(w); low[v] = min(low[v], low[w])
        elif w in on:
            low[v] = min(low[v], index[w])
    if low[v] == index[v]:
        c = []
        while True:
            w = stack.pop(); on.discard(w); c.append(w)
            if w == v:
                break
        if len(c) > 1:
            sccs.append(sorted(c))
sys.setrecursionlimit(10000)
for v in sorted(set(edges) | {w for ws in edges.values() for w in ws}):
    if v not in index:
        visit(v)
for c in sccs:
    print(f"layering: FAIL: rooms in one include cycle ({len(c)}): {' '.join(c)}")
    status = 1
if status == 0:
    print("layering: ok: no include goes up a layer, no include cycle between rooms")
sys.exit(status)
PY
