#!/usr/bin/python3
"""Integration checks of a running cuzk-daemon through a Python gRPC client
generated from proto/ (python3-grpcio, python3-grpc-tools).

Usage: client.py PYGEN_DIR ADDR WORK_DIR MAX_MESSAGE_BYTES

PYGEN_DIR holds the generated modules (cuzk/v1/proving_pb2*.py and
cuzk_health/health_pb2*.py). WORK_DIR holds c1.wit (a witness of circuit
"c1" in the daemon's parameter folder) and receives proof files for the
shell script to verify with `cuzk verify`. The daemon's parameter folder
has "c1" and "trunc" (a truncated .params). Prints one line per check and
the closing "N passed, N failed" line; exits 1 on any failure.
"""
import os
import sys
import threading
import time

sys.path.insert(0, sys.argv[1])
import grpc  # noqa: E402
from cuzk.v1 import proving_pb2 as pb  # noqa: E402
from cuzk.v1 import proving_pb2_grpc as pbg  # noqa: E402
from cuzk_health import health_pb2, health_pb2_grpc  # noqa: E402

ADDR, WORK, MAX_MSG = sys.argv[2], sys.argv[3], int(sys.argv[4])
passed = failed = 0
Status = pb.AwaitProofResponse


def check(cond, what):
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
        print("FAIL:", what, flush=True)


def rpc_error(fn, *args):
    """The grpc.RpcError a call raises, or None."""
    try:
        fn(*args)
    except grpc.RpcError as e:
        return e
    return None


def expect_error(fn, req, code, needle, what):
    e = rpc_error(fn, req)
    ok = e is not None and e.code() == code and needle in (e.details() or "")
    check(ok, "%s: want %s containing %r, got %s" % (
        what, code, needle, None if e is None else (e.code(), e.details())))


def counters(text):
    """The cuzk_jobs_total series of a metrics text: {(kind, outcome): n}."""
    out = {}
    for line in text.splitlines():
        if line.startswith("cuzk_jobs_total{"):
            labels, value = line[len("cuzk_jobs_total{"):].split("} ")
            kv = dict(p.split("=") for p in labels.split(","))
            out[(kv["kind"].strip('"'), kv["outcome"].strip('"'))] = int(value)
    return out


chan = grpc.insecure_channel(ADDR, options=[("grpc.max_send_message_length", -1),
                                            ("grpc.max_receive_message_length", -1)])
eng = pbg.ProvingEngineStub(chan)
health = health_pb2_grpc.HealthStub(chan)
jobs = {}  # job id -> final status, every job submitted here
# Jobs run before this client (by cuzk-bench) count too: compare differences.
st0 = eng.GetStatus(pb.GetStatusRequest())
m0 = counters(eng.GetMetrics(pb.GetMetricsRequest()).prometheus_text)


submitted_at = {}


def submit(**kw):
    t = time.time()
    r = eng.SubmitProof(pb.SubmitProofRequest(**kw))
    jobs.setdefault(r.job_id, None)
    submitted_at[r.job_id] = t
    return r.job_id


def await_job(job_id, timeout_ms=0):
    r = eng.AwaitProof(pb.AwaitProofRequest(job_id=job_id, timeout_ms=timeout_ms))
    if r.status != Status.TIMEOUT:
        jobs[job_id] = r.status
    return r


def write_proof(name, r):
    with open(os.path.join(WORK, name + ".proof"), "wb") as f:
        f.write(r.proof)
    with open(os.path.join(WORK, name + ".public"), "w") as f:
        for p in r.public_inputs:
            for i in range(0, len(p), 32):
                f.write("0x" + p[i:i + 32][::-1].hex() + "\n")


# Health: SERVING for the empty name and our service; NOT_FOUND otherwise.
hs = health_pb2.HealthCheckResponse
check(health.Check(health_pb2.HealthCheckRequest()).status == hs.SERVING, "health SERVING")
check(health.Check(health_pb2.HealthCheckRequest(service="cuzk.v1.ProvingEngine")).status
      == hs.SERVING, "health of cuzk.v1.ProvingEngine")
expect_error(health.Check, health_pb2.HealthCheckRequest(service="nope"),
             grpc.StatusCode.NOT_FOUND, 'unknown service "nope"', "health of unknown service")
w = health.Watch(health_pb2.HealthCheckRequest())
check(next(w).status == hs.SERVING, "Watch: SERVING first")
w.cancel()
w = health.Watch(health_pb2.HealthCheckRequest(service="nope"))
check(next(w).status == hs.SERVICE_UNKNOWN, "Watch of an unknown service: SERVICE_UNKNOWN")
w.cancel()
e = rpc_error(chan.unary_unary("/cuzk.v1.ProvingEngine/Nope"), b"")
check(e is not None and e.code() == grpc.StatusCode.UNIMPLEMENTED
      and "/cuzk.v1.ProvingEngine/Nope" in e.details(), "unknown method UNIMPLEMENTED")

# Synthetic job: submit + await, two partitions.
jid = submit(proof_kind=pb.SYNTHETIC, synthetic_constraints=512, synthetic_public_inputs=3,
             synthetic_seed=7, synthetic_partitions=2, priority=pb.HIGH)
r = await_job(jid)
check(r.status == Status.COMPLETED, "synthetic COMPLETED: %s" % r.error_message)
check(len(r.proof) == 2 * 192 and len(r.public_inputs) == 2
      and all(len(p) == 3 * 32 for p in r.public_inputs), "synthetic proof and inputs sizes")
check(r.circuit_id == "synthetic-n512-p3-s7", "synthetic circuit id %s" % r.circuit_id)
check(r.total_ms >= r.gpu_compute_ms, "timings")
write_proof("py_synth", r)
r2 = await_job(jid)  # a finished job can be awaited again
check(r2.status == Status.COMPLETED and r2.proof == r.proof, "await twice")

# Generic R1CS through Prove, with the witness in the request.
with open(os.path.join(WORK, "c1.wit"), "rb") as f:
    wit = f.read()
pr = eng.Prove(pb.ProveRequest(submit=pb.SubmitProofRequest(
    proof_kind=pb.GENERIC_R1CS, circuit_id="c1", witnesses=[wit, wit])))
jobs[pr.result.job_id] = pr.result.status
check(pr.result.status == Status.COMPLETED, "r1cs Prove COMPLETED: %s" % pr.result.error_message)
check(len(pr.result.proof) == 384, "r1cs proof of 2 partitions")
write_proof("py_r1cs", pr.result)

# Idempotency: the same request_id returns the same job while it runs and
# once it has completed.
a = submit(proof_kind=pb.SYNTHETIC, synthetic_constraints=512, synthetic_seed=7,
           synthetic_public_inputs=3, request_id="rq-1")
b = submit(proof_kind=pb.SYNTHETIC, synthetic_constraints=512, synthetic_seed=7,
           synthetic_public_inputs=3, request_id="rq-1")
check(a == b, "request_id idempotent")
check(await_job(a).status == Status.COMPLETED, "idempotent job completes")
c = submit(proof_kind=pb.SYNTHETIC, synthetic_constraints=512, synthetic_seed=7,
           synthetic_public_inputs=3, request_id="rq-1", priority=pb.HIGH)
check(a == c, "request_id idempotent across a priority change (a retry)")
# Another payload under the id of a completed job is a new job (a client
# whose ids name sectors proves a sector again with new data), answered with
# its own proof, never the first job's.
d = submit(proof_kind=pb.SYNTHETIC, synthetic_constraints=512, synthetic_seed=8,
           synthetic_public_inputs=3, request_id="rq-1")
check(d != a, "a completed job's request_id with another payload: a new job")
r = await_job(d)
check(r.status == Status.COMPLETED and r.circuit_id == "synthetic-n512-p3-s8",
      "the new job proves its own request: %s %s" % (r.status, r.circuit_id))
check(submit(proof_kind=pb.SYNTHETIC, synthetic_constraints=512, synthetic_seed=8,
             synthetic_public_inputs=3, request_id="rq-1") == d, "the id now names the new job")
# While the id's job is queued or running, another payload under it is
# refused with the id and that job named; the payload's digest covers every
# field but request_id and priority. `live` first makes the parameters of
# its new circuit (a second or more here), and the requests below follow
# at once.
LIVE = dict(proof_kind=pb.SYNTHETIC, synthetic_constraints=16384, synthetic_seed=9,
            synthetic_public_inputs=3, synthetic_partitions=2)
live = submit(request_id="rq-3", **LIVE)
for what, kw in (("seed", dict(LIVE, synthetic_seed=10)),
                 ("sector", dict(LIVE, sector_number=5)),
                 ("kind and vanilla proof", dict(proof_kind=pb.POREP_SEAL_COMMIT,
                                                 vanilla_proof=b"first", sector_number=5))):
    expect_error(eng.SubmitProof, pb.SubmitProofRequest(request_id="rq-3", **kw),
                 grpc.StatusCode.INVALID_ARGUMENT,
                 'request_id "rq-3" names another request still in progress (job %s' % live,
                 "reused request_id of a running job, other " + what)
check(submit(request_id="rq-3", priority=pb.LOW, **LIVE) == live,
      "request_id idempotent while its job runs")
check(await_job(live).status == Status.COMPLETED, "the rq-3 job completes")
# A failed job frees its id: the same request again is a retry, a new job.
v1 = submit(proof_kind=pb.POREP_SEAL_COMMIT, vanilla_proof=b"first", sector_number=5,
            request_id="rq-2")
check(await_job(v1).status == Status.FAILED, "the rq-2 job fails (not a C1 output)")
v2 = submit(proof_kind=pb.POREP_SEAL_COMMIT, vanilla_proof=b"first", sector_number=5,
            request_id="rq-2")
check(v2 != v1, "a failed job's request_id: the same request again is a new job")
check(await_job(v2).status == Status.FAILED, "the retry fails as well")
# Control characters in a request id: accepted, escaped in the daemon's log
# (test_daemon.sh looks).
ctl = submit(proof_kind=pb.SYNTHETIC, synthetic_constraints=512, synthetic_seed=7,
             synthetic_public_inputs=3, request_id="ctl\nline\x1b[31m")
check(await_job(ctl).status == Status.COMPLETED, "job with control characters in its request_id")
# protobuf-c would cut a string at a NUL: such requests are refused, not
# read as a shorter id.
expect_error(eng.SubmitProof, pb.SubmitProofRequest(proof_kind=pb.GENERIC_R1CS,
                                                    circuit_id="c1\x00/../x", witnesses=[b"w"]),
             grpc.StatusCode.INVALID_ARGUMENT, "contains a NUL byte", "NUL in a circuit id")
expect_error(eng.PreloadSRS, pb.PreloadSrsRequest(circuit_id="c1\x00x"),
             grpc.StatusCode.INVALID_ARGUMENT, "contains a NUL byte", "NUL in a preload id")
expect_error(eng.PreloadSRS, pb.PreloadSrsRequest(circuit_id="nope-never"),
             grpc.StatusCode.NOT_FOUND, "nope-never", "preload of an unknown circuit")
st = eng.GetStatus(pb.GetStatusRequest())
check(not any(s.circuit_id == "nope-never" for s in st.loaded_srs),
      "a failed preload of an unknown id leaves no entry behind")

# Bad requests: each fails its call or its job with a precise error.
raw = chan.unary_unary("/cuzk.v1.ProvingEngine/SubmitProof",
                       request_serializer=lambda x: x, response_deserializer=lambda x: x)
expect_error(raw, b"\xff\xff\xff\xff\x0f garbage", grpc.StatusCode.INVALID_ARGUMENT,
             "not a valid cuzk.v1.SubmitProofRequest", "garbage bytes")
expect_error(eng.SubmitProof, pb.SubmitProofRequest(proof_kind=99),
             grpc.StatusCode.INVALID_ARGUMENT, "unknown proof kind 99", "unknown kind")
expect_error(eng.SubmitProof, pb.SubmitProofRequest(),
             grpc.StatusCode.INVALID_ARGUMENT, "unknown proof kind 0", "unspecified kind")
expect_error(eng.SubmitProof, pb.SubmitProofRequest(proof_kind=pb.SYNTHETIC, priority=9,
                                                    synthetic_constraints=64),
             grpc.StatusCode.INVALID_ARGUMENT, "unknown priority 9", "unknown priority")
expect_error(eng.SubmitProof, pb.SubmitProofRequest(proof_kind=pb.SYNTHETIC, request_id="r" * 129,
                                                    synthetic_constraints=64),
             grpc.StatusCode.INVALID_ARGUMENT, "request_id longer than 128", "long request_id")
expect_error(eng.SubmitProof, pb.SubmitProofRequest(proof_kind=pb.SYNTHETIC, witnesses=[b"w"],
                                                    synthetic_constraints=64),
             grpc.StatusCode.INVALID_ARGUMENT, "witnesses are only for GENERIC_R1CS",
             "witness on a synthetic job")
expect_error(eng.SubmitProof, pb.SubmitProofRequest(proof_kind=pb.SYNTHETIC,
                                                    synthetic_constraints=64,
                                                    synthetic_partitions=65),
             grpc.StatusCode.INVALID_ARGUMENT, "at most 64 partitions", "too many partitions")
expect_error(eng.SubmitProof, pb.SubmitProofRequest(proof_kind=pb.GENERIC_R1CS,
                                                    circuit_id="../etc"),
             grpc.StatusCode.INVALID_ARGUMENT, "must not start with '.'", "path in circuit id")
expect_error(eng.SubmitProof, pb.SubmitProofRequest(proof_kind=pb.GENERIC_R1CS, circuit_id="c1"),
             grpc.StatusCode.INVALID_ARGUMENT, "needs 1..64 witnesses", "no witness")
expect_error(eng.SubmitProof, pb.SubmitProofRequest(proof_kind=pb.SYNTHETIC,
                                                    synthetic_constraints=1 << 40),
             grpc.StatusCode.INVALID_ARGUMENT, "out of range", "huge synthetic circuit")
expect_error(eng.SubmitProof, pb.SubmitProofRequest(
    proof_kind=pb.SYNTHETIC, synthetic_constraints=64, vanilla_proof=b"x" * (MAX_MSG + 1024)),
    grpc.StatusCode.RESOURCE_EXHAUSTED, "exceeds the daemon's limit of %d bytes" % MAX_MSG,
    "oversized message")
expect_error(eng.AwaitProof, pb.AwaitProofRequest(job_id="job-nope"),
             grpc.StatusCode.NOT_FOUND, 'unknown job id "job-nope"', "await unknown job")
expect_error(eng.CancelProof, pb.CancelProofRequest(job_id="job-nope"),
             grpc.StatusCode.NOT_FOUND, 'unknown job id "job-nope"', "cancel unknown job")


def failed_job(what, needle, **kw):
    r = await_job(submit(**kw))
    check(r.status == Status.FAILED and needle in r.error_message and not r.proof,
          "%s: want FAILED with %r, got %s %r" % (what, needle, r.status, r.error_message))


failed_job("porep: not a C1 envelope", "vanilla_proof: not JSON",
           proof_kind=pb.POREP_SEAL_COMMIT, vanilla_proof=b"\x01\x02")
# SnapDeals: the request's own fields at submission, its partition proofs
# when the job runs.
failed_job("snap: not a PartitionProof", "vanilla_proofs[0]",
           proof_kind=pb.SNAP_DEALS_UPDATE, vanilla_proofs=[b"\x01\x02"],
           comm_r_old=bytes(32), comm_d_new=bytes(32), comm_r_new=bytes(32))
expect_error(eng.SubmitProof, pb.SubmitProofRequest(
    proof_kind=pb.SNAP_DEALS_UPDATE, vanilla_proofs=[b"\x01"], comm_r_old=bytes(31),
    comm_d_new=bytes(32), comm_r_new=bytes(32)), grpc.StatusCode.INVALID_ARGUMENT,
    "comm_r_old has 31 bytes (32 expected)", "snap: short comm_r_old")
expect_error(eng.SubmitProof, pb.SubmitProofRequest(
    proof_kind=pb.SNAP_DEALS_UPDATE, vanilla_proofs=[b"\x01"], comm_r_old=bytes(32),
    comm_d_new=b"\xff" * 32, comm_r_new=bytes(32)), grpc.StatusCode.INVALID_ARGUMENT,
    "comm_d_new is not a canonical field element", "snap: non-canonical comm_d_new")
expect_error(eng.SubmitProof, pb.SubmitProofRequest(
    proof_kind=pb.SNAP_DEALS_UPDATE, registered_proof=3, vanilla_proofs=[b"\x01"],
    comm_r_old=bytes(32), comm_d_new=bytes(32), comm_r_new=bytes(32)),
    grpc.StatusCode.INVALID_ARGUMENT, "1 vanilla_proofs; StackedDrg32GiBV1 takes 16",
    "snap: one partition of sixteen")
# PoSt requests: what the request itself says is checked at submission (the
# registry: numbers, kinds, sizes; sizes of fields), the vanilla proofs when
# the job runs (a malformed one fails its job, naming where).
post = dict(proof_kind=pb.WINNING_POST, registered_proof=0, randomness=bytes(32),
            vanilla_proofs=[b"\x01\x02"])
failed_job("truncated vanilla proof", "vanilla_proofs[0]: truncated", **post)
for what, change, needle in (
        ("window number", dict(registered_proof=5),
         "registered_proof 5 is StackedDrgWindow2KiBV1, not a winning-post proof"),
        ("unknown number", dict(registered_proof=99),
         "registered_proof 99 is not a known RegisteredPoStProof"),
        ("size", dict(sector_size=34359738368),
         "registered_proof 0 (StackedDrgWinning2KiBV1) is for 2KiB sectors, the request says "
         "sector_size 34359738368 (32GiB)"),
        ("randomness", dict(randomness=bytes(31)), "randomness has 31 bytes (32 expected)"),
        ("sectors", dict(vanilla_proofs=[b"a", b"b"]),
         "2 vanilla_proofs; StackedDrgWinning2KiBV1 takes 1..1")):
    kw = dict(post)
    kw.update(change)
    expect_error(eng.SubmitProof, pb.SubmitProofRequest(**kw), grpc.StatusCode.INVALID_ARGUMENT,
                 needle, "PoSt request: " + what)
failed_job("missing SRS", "circuit nope: parameters not found", proof_kind=pb.GENERIC_R1CS,
           circuit_id="nope", witnesses=[wit])
failed_job("truncated params", "trunc.params", proof_kind=pb.GENERIC_R1CS,
           circuit_id="trunc", witnesses=[wit])
failed_job("garbage witness", "witness 0: bad magic", proof_kind=pb.GENERIC_R1CS,
           circuit_id="c1", witnesses=[b"not a witness at all, but long enough"])
failed_job("truncated witness", "witness 1: truncated", proof_kind=pb.GENERIC_R1CS,
           circuit_id="c1", witnesses=[wit, wit[:-5]])

# PreloadSRS / EvictSRS.
p = eng.PreloadSRS(pb.PreloadSrsRequest(circuit_id="c1"))
check(p.already_loaded, "c1 already loaded by the jobs above")
ev = eng.EvictSRS(pb.EvictSrsRequest(circuit_id="c1"))
check(ev.was_loaded and ev.freed_bytes > 0, "evict c1")
ev = eng.EvictSRS(pb.EvictSrsRequest(circuit_id="c1"))
check(not ev.was_loaded and ev.freed_bytes == 0, "evict c1 again")
p = eng.PreloadSRS(pb.PreloadSrsRequest(circuit_id="c1"))
check(not p.already_loaded, "preload c1 after evict")
expect_error(eng.PreloadSRS, pb.PreloadSrsRequest(circuit_id="nope"),
             grpc.StatusCode.NOT_FOUND, "parameters not found", "preload missing")
expect_error(eng.PreloadSRS, pb.PreloadSrsRequest(circuit_id="trunc"),
             grpc.StatusCode.FAILED_PRECONDITION, "trunc.params", "preload truncated")
expect_error(eng.EvictSRS, pb.EvictSrsRequest(circuit_id="a/b"),
             grpc.StatusCode.INVALID_ARGUMENT, "outside [A-Za-z0-9._-]", "evict bad id")

# Cancel: a long job runs, a LOW one queues behind it (one worker; the
# NORMAL job's partitions are admitted first, one at a time).
long_kw = dict(proof_kind=pb.SYNTHETIC, synthetic_constraints=1 << 13, synthetic_seed=9,
               synthetic_partitions=8)
running = submit(**long_kw)
queued = submit(priority=pb.LOW, **long_kw)
deadline = time.time() + 60
while time.time() < deadline:
    st = eng.GetStatus(pb.GetStatusRequest())
    stages = {j.job_id: j.stage for j in st.jobs}
    if stages.get(running) not in (None, "queued", "srs_load"):
        break
    time.sleep(0.05)
check(stages.get(queued) == "queued", "second job queued: %s" % stages)
# Each job's stage per partition: 8 entries, known names, the queued job's all queued.
known = {"queued", "synthesis", "ready", "prove", "finalize", "done", "failed", "cancelled"}
pst = {j.job_id: list(j.partition_stages) for j in st.jobs}
check(len(pst.get(running, [])) == 8 and set(pst[running]) <= known and
      pst[running] != ["queued"] * 8, "partition stages of the running job: %s" % pst)
check(pst.get(queued) == ["queued"] * 8, "partition stages of the queued job: %s" % pst)
c = eng.CancelProof(pb.CancelProofRequest(job_id=queued))
check(not c.was_running, "cancel queued: was_running false")
r = await_job(queued)
check(r.status == Status.CANCELLED and "while queued" in r.error_message, "queued -> CANCELLED")
t = await_job(running, timeout_ms=1)
check(t.status == Status.TIMEOUT, "await with a short timeout: TIMEOUT")
c = eng.CancelProof(pb.CancelProofRequest(job_id=running))
check(c.was_running, "cancel running: was_running true")
r = await_job(running)
check(r.status == Status.CANCELLED and not r.proof, "running -> CANCELLED: %s" % r.error_message)

# Priorities: behind a running job, CRITICAL overtakes LOW and NORMAL
# submitted before it; FIFO within a level.
blocker = submit(**long_kw)
while eng.GetStatus(pb.GetStatusRequest()).jobs[0].stage in ("queued", "srs_load"):
    time.sleep(0.05)
small = dict(proof_kind=pb.SYNTHETIC, synthetic_constraints=512, synthetic_public_inputs=3,
             synthetic_seed=7)
low = submit(priority=pb.LOW, **small)
normal1 = submit(priority=pb.NORMAL, **small)
normal2 = submit(**small)  # PRIORITY_UNSPECIFIED counts as NORMAL
crit = submit(priority=pb.CRITICAL, **small)
st = eng.GetStatus(pb.GetStatusRequest())
check([j.job_id for j in st.jobs if j.stage == "queued"] != [], "jobs queued behind the blocker")
res = {k: await_job(v) for k, v in
       dict(blocker=blocker, low=low, normal1=normal1, normal2=normal2, crit=crit).items()}
check(all(r.status == Status.COMPLETED for r in res.values()), "priority jobs COMPLETED")
# A job's queue wait ends when it starts: start = submission + queue wait.
# CRITICAL starts first and LOW last; the two NORMAL jobs in submission order
# (the second may start within a millisecond of the first: the pipeline
# prepares the next job of a level while the first builds its witness).
ids = dict(low=low, normal1=normal1, normal2=normal2, crit=crit)
start = {k: submitted_at[ids[k]] * 1000 + res[k].queue_wait_ms for k in ids}
order = sorted(ids, key=lambda k: start[k])
check(order[0] == "crit" and order[-1] == "low" and start["normal1"] <= start["normal2"] + 2,
      "start order by priority: %s (%s)" % (order, start))

# Concurrent clients: 6 synthetic jobs from 3 threads, all complete.
results = []


def worker():
    for _ in range(2):
        rr = eng.Prove(pb.ProveRequest(submit=pb.SubmitProofRequest(
            proof_kind=pb.SYNTHETIC, synthetic_constraints=512, synthetic_public_inputs=3,
            synthetic_seed=7)))
        results.append(rr.result)


ths = [threading.Thread(target=worker) for _ in range(3)]
[t.start() for t in ths]
[t.join() for t in ths]
for rr in results:
    jobs[rr.job_id] = rr.status
check(len(results) == 6 and all(rr.status == Status.COMPLETED for rr in results),
      "6 concurrent Prove calls COMPLETED")

# Status and metrics agree with what happened; no job lost.
st = eng.GetStatus(pb.GetStatusRequest())
ended = [s for s in jobs.values() if s is not None]
check(len(ended) == len(jobs), "every job ended: %s" % jobs)
check(all(s in (Status.COMPLETED, Status.FAILED, Status.CANCELLED) for s in ended),
      "final states only")
n_ok = sum(1 for s in ended if s == Status.COMPLETED)
n_fail = sum(1 for s in ended if s == Status.FAILED)
n_cancel = sum(1 for s in ended if s == Status.CANCELLED)
d_ok = st.total_proofs_completed - st0.total_proofs_completed
d_fail = st.total_proofs_failed - st0.total_proofs_failed
d_cancel = st.total_proofs_cancelled - st0.total_proofs_cancelled
check((d_ok, d_fail, d_cancel) == (n_ok, n_fail, n_cancel),
      "status totals grew by %d/%d/%d, jobs here %d/%d/%d" % (
          d_ok, d_fail, d_cancel, n_ok, n_fail, n_cancel))
check(st.ready and st.backend == "cpu" and st.rss_bytes > 0, "status ready/backend/rss")
check(any(s.circuit_id == "c1" and s.tier == pb.SRSStatus.HOT for s in st.loaded_srs),
      "c1 HOT in status")
check(not st.jobs, "no job left in flight")
m = eng.GetMetrics(pb.GetMetricsRequest()).prometheus_text
m1 = counters(m)
delta = {k: v - m0.get(k, 0) for k, v in m1.items() if v != m0.get(k, 0)}
check(delta == {("generic_r1cs", "completed"): 1, ("generic_r1cs", "failed"): 4,
                ("porep_seal_commit", "failed"): 3, ("winning_post", "failed"): 1,
                ("snap_deals_update", "failed"): 1,
                ("synthetic", "completed"): 16, ("synthetic", "cancelled"): 2},
      "metrics job counters by kind and outcome grew by %s" % delta)
check('cuzk_stage_seconds_bucket{stage="prove",le="+Inf"}' in m and "cuzk_rss_bytes" in m,
      "metrics histograms and rss")

# Still serving after all of it.
check(health.Check(health_pb2.HealthCheckRequest()).status == hs.SERVING, "still SERVING")
print("client.py: %d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
