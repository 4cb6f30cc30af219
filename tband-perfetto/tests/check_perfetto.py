#!/usr/bin/env python3
"""Checks a trace written by tband-perfetto against Perfetto's official schema.

Usage: check_perfetto.py TRACE.pftrace[.gz] EXPECTED.json

Parses the trace with the compiled protos that the PyPI package `perfetto`
ships, then checks that
  - no field is unknown to the official schema (at any depth),
  - per cpu, the context switches form one consistent chain (every full
    event's prev_pid is the previous next_pid; time never goes backwards and
    no thread runs on two cpus at once),
  - the time each thread is scheduled equals the model's,
  - every IRQ entry has its exit and every slice begin its end, per track,
  - every interned name and every track used was defined first,
  - the counts of switches to tasks, wake-ups, IRQs, slices, instants and
    counter values equal
    the model's (EXPECTED.json, written by the Rust test from the model).
Prints one line per problem and exits 1 if there is any.
"""

import gzip
import json
import sys
from collections import defaultdict

from google.protobuf.unknown_fields import UnknownFieldSet
from perfetto.protos.perfetto.trace import perfetto_trace_pb2 as pb

SLICE_BEGIN = pb.TrackEvent.TYPE_SLICE_BEGIN
SLICE_END = pb.TrackEvent.TYPE_SLICE_END
INSTANT = pb.TrackEvent.TYPE_INSTANT
COUNTER = pb.TrackEvent.TYPE_COUNTER
SEQ_NEEDS_INCREMENTAL_STATE = 2


class Problems:
    def __init__(self):
        self.items = []

    def add(self, text):
        if len(self.items) < 50:
            print("problem:", text)
        self.items.append(text)


def load(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    trace = pb.Trace()
    trace.ParseFromString(data)
    return trace


def unknown_fields(msg, where, problems):
    unknown = UnknownFieldSet(msg)
    if len(unknown):
        numbers = sorted({f.field_number for f in unknown})
        problems.add(f"{where}: fields unknown to the schema: {numbers}")
    for field, value in msg.ListFields():
        if field.message_type is None:
            continue
        if field.is_repeated if hasattr(field, "is_repeated") else field.label == field.LABEL_REPEATED:
            for i, item in enumerate(value):
                unknown_fields(item, f"{where}.{field.name}[{i}]", problems)
        else:
            unknown_fields(value, f"{where}.{field.name}", problems)


def sched_events(bundle):
    """The bundle's switches and wakings as plain tuples, in time order (a
    bundle of compact events may open with full ones, which come first at
    equal times)."""
    switches, wakings = [], []
    for e in bundle.event:
        if e.HasField("sched_switch"):
            s = e.sched_switch
            switches.append((e.timestamp, s.prev_pid, s.next_pid, s.prev_state))
        elif e.HasField("sched_waking"):
            wakings.append((e.timestamp, e.sched_waking.pid))
    c = bundle.compact_sched
    ts = 0
    for i, delta in enumerate(c.switch_timestamp):
        ts += delta
        switches.append((ts, None, c.switch_next_pid[i], c.switch_prev_state[i]))
    ts = 0
    for i, delta in enumerate(c.waking_timestamp):
        ts += delta
        wakings.append((ts, c.waking_pid[i]))
    # Stable: at equal times, full events stay before compact ones.
    switches.sort(key=lambda s: s[0])
    wakings.sort(key=lambda w: w[0])
    return switches, wakings


def check(trace, expected, problems):
    duration = expected["duration_ns"]
    switches_by_cpu = defaultdict(list)
    irq_by_cpu = defaultdict(list)
    wakings = 0
    names = defaultdict(set)  # sequence -> defined name iids
    tracks = {}
    track_events = defaultdict(list)  # track -> [(ts, order, type)]
    instants = counters = 0
    threads = []

    for n, packet in enumerate(trace.packet):
        unknown_fields(packet, f"packet[{n}]", problems)
        seq = packet.trusted_packet_sequence_id
        if packet.HasField("process_tree"):
            threads.extend(packet.process_tree.threads)
        if packet.HasField("interned_data"):
            for name in packet.interned_data.event_names:
                names[seq].add(name.iid)
        if packet.HasField("ftrace_events"):
            bundle = packet.ftrace_events
            if not bundle.HasField("cpu"):
                problems.add(f"packet[{n}]: ftrace bundle without cpu")
            switches, w = sched_events(bundle)
            switches_by_cpu[bundle.cpu].extend(switches)
            wakings += len(w)
            for e in bundle.event:
                if e.HasField("irq_handler_entry"):
                    irq_by_cpu[bundle.cpu].append((e.timestamp, "entry"))
                elif e.HasField("irq_handler_exit"):
                    irq_by_cpu[bundle.cpu].append((e.timestamp, "exit"))
        if packet.HasField("track_descriptor"):
            d = packet.track_descriptor
            if d.HasField("parent_uuid") and d.parent_uuid not in tracks:
                problems.add(f"packet[{n}]: track {d.uuid} has an undefined parent {d.parent_uuid}")
            tracks[d.uuid] = d
        if packet.HasField("track_event"):
            e = packet.track_event
            if not packet.sequence_flags & SEQ_NEEDS_INCREMENTAL_STATE:
                problems.add(f"packet[{n}]: track event without SEQ_NEEDS_INCREMENTAL_STATE")
            if e.track_uuid not in tracks:
                problems.add(f"packet[{n}]: event on undefined track {e.track_uuid}")
            if e.HasField("name_iid") and e.name_iid not in names[seq]:
                problems.add(f"packet[{n}]: name iid {e.name_iid} used before it was interned")
            if e.type in (SLICE_BEGIN, SLICE_END):
                track_events[e.track_uuid].append((packet.timestamp, n, e.type))
            elif e.type == INSTANT:
                instants += 1
            elif e.type == COUNTER:
                counters += 1
                if not tracks.get(e.track_uuid, pb.TrackDescriptor()).HasField("counter"):
                    problems.add(f"packet[{n}]: counter value on a track that is no counter")

    check_sched(switches_by_cpu, duration, expected, problems)
    switches_to_tasks = sum(
        1 for switches in switches_by_cpu.values() for s in switches if s[2] != 0
    )

    # An entry or begin left without its exit or end is a slice the end of
    # the trace cut, written open on purpose (tests/trace_processor.rs
    # checks which ones against the model); an exit or end without its
    # entry or begin is a fault.
    irqs = 0
    for cpu, events in irq_by_cpu.items():
        depth = 0
        for ts, kind in sorted(events, key=lambda e: e[0]):
            if kind == "entry":
                depth += 1
                irqs += 1
            elif depth == 0:
                problems.add(f"cpu {cpu}: IRQ exit at {ts} without an entry")
            else:
                depth -= 1

    slices = 0
    for track, events in track_events.items():
        depth = 0
        for ts, _, kind in sorted(events):
            if kind == SLICE_BEGIN:
                depth += 1
                slices += 1
            elif depth == 0:
                problems.add(f"track {track}: slice end at {ts} without a begin")
            else:
                depth -= 1

    counts = {
        "switches_to_tasks": switches_to_tasks,
        "threads": len(threads),
        "wakings": wakings,
        "irqs": irqs,
        "slices": slices,
        "instants": instants,
        "counter_values": counters,
    }
    for key, value in counts.items():
        if value != expected[key]:
            problems.add(f"{key}: {value} in the trace, {expected[key]} in the model")
    return counts


def check_sched(switches_by_cpu, duration, expected, problems):
    runs = []  # (start, end, tid, cpu)
    for cpu, switches in switches_by_cpu.items():
        last_ts, current = None, None
        for ts, prev_pid, next_pid, _ in switches:
            if last_ts is not None and ts < last_ts:
                problems.add(f"cpu {cpu}: switch at {ts} before the previous one at {last_ts}")
            if prev_pid is not None and current is not None and prev_pid != current:
                problems.add(f"cpu {cpu}: switch at {ts} from {prev_pid}, but {current} was running")
            if current is not None and current != 0:
                runs.append((last_ts, ts, current, cpu))
            last_ts, current = ts, next_pid
        if current:
            runs.append((last_ts, duration, current, cpu))
    sched_ns = defaultdict(int)
    for start, end, tid, _ in runs:
        sched_ns[str(tid)] += end - start
    if dict(sched_ns) != expected["sched_ns_by_tid"]:
        problems.add(f"scheduled ns per thread {dict(sched_ns)} != model {expected['sched_ns_by_tid']}")
    by_tid = defaultdict(list)
    for run in runs:
        by_tid[run[2]].append(run)
    for tid, tid_runs in by_tid.items():
        tid_runs.sort()
        for a, b in zip(tid_runs, tid_runs[1:]):
            if b[0] < a[1]:
                problems.add(f"thread {tid} runs on cpus {a[3]} and {b[3]} at once at {b[0]}")


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    with open(sys.argv[2]) as f:
        expected = json.load(f)
    problems = Problems()
    counts = check(load(sys.argv[1]), expected, problems)
    print(f"{sys.argv[1]}: {counts}, {len(problems.items)} problems")
    return 1 if problems.items else 0


if __name__ == "__main__":
    sys.exit(main())
