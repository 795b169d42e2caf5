#!/usr/bin/env python3
# Regenerates the teaching samples in samples/ (seeded, deterministic) and prints a compare table for each.
# usage: scripts/make-samples.py burst|swapwins|recwins|livelock|starve|tenants   (needs build/bin/preemptlab-cli)
import json, random, subprocess, sys
import os
ROOT=os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
cli=os.path.join(ROOT,'build/bin/preemptlab-cli')
def wl(name, notes, config, policy, reqs):
    return {"format":"preemptlab.workload.v1","name":name,"notes":notes,"config":config,"policy":policy,"requests":reqs}
def save(path, w):
    s=json.dumps(w, indent=2)
    open(path,'w').write(s+"\n")
def cmp(path, extra=[]):
    p=subprocess.run([cli,'compare',path]+extra,capture_output=True,text=True); print(p.stdout[:3000], p.stderr[:500])
base=dict(block_size_tokens=16, capacity_blocks=96, kv_bytes_per_token=1024, prefill_tokens_per_tick=128, transfer_bytes_per_tick=65536, host_capacity_bytes=8*1024*1024, max_ticks=20000, wait_threshold_ticks=50, preemption_threshold=3)
pol=dict(recovery="recompute", victim_rule="priority-newest", adaptive_tie="recompute", resume_guard="next-block", watermark_blocks=0, preempt_ahead=False)
which=sys.argv[1]
if which=='burst':
    r=random.Random(3); reqs=[]
    for i in range(4): reqs.append(dict(id=f"long{i}",arrival_tick=0,prompt_tokens=100+20*i,output_tokens=220,priority=0))
    for i in range(12): reqs.append(dict(id=f"burst{i:02d}",arrival_tick=40+i//4,prompt_tokens=r.randint(40,120),output_tokens=r.randint(60,140),priority=0))
    w=wl("burst-recompute-wave","A burst of 12 requests lands at ticks 40-42 on a pool that four long requests already half fill. The next-block guard admits them all, the pool overflows as they decode, and recompute evicts victim after victim: the replays then compete with new prompts for the 128 prefill tokens a tick, so queue delay grows in a wave. Compare with --resume-guard full-reservation (fewer evictions, more queueing) and with --recovery swap.",base,pol,reqs)
    save(os.path.join(ROOT,'samples/burst-recompute-wave.workload.json'),w); cmp(os.path.join(ROOT,'samples/burst-recompute-wave.workload.json'))
def mixreqs(seed, n, spread):
    r=random.Random(seed); reqs=[]
    for i in range(n):
        reqs.append(dict(id=f"q{i:02d}",arrival_tick=r.randint(0,spread),prompt_tokens=r.randint(150,400),output_tokens=r.randint(80,240),priority=r.choice([0,0,1])))
    return reqs
if which=='swapwins':
    cfg=dict(base, capacity_blocks=64, prefill_tokens_per_tick=16, transfer_bytes_per_tick=262144, kv_bytes_per_token=256, host_capacity_bytes=64*1024*1024)
    r=random.Random(5); reqs=[dict(id=f"q{i:02d}",arrival_tick=r.randint(0,60),prompt_tokens=r.randint(100,300),output_tokens=r.randint(300,600),priority=r.choice([0,0,1])) for i in range(12)]
    w=wl("swap-wins","Slow prefill (16 tokens a tick) and a fast link (256 KiB a tick at 256 bytes per token): bringing a 500-token victim back costs about 32 ticks of replay but 1 tick of copying each way. Compare the four recovery modes: swap (and adaptive, which picks swap from the estimates) has about a quarter of recompute's evictions, replays nothing and finishes the same work sooner; recompute spends the scarce prefill budget on replays, which causes further pressure.",cfg,dict(pol,recovery="swap"),reqs)
    save(os.path.join(ROOT,'samples/swap-wins.workload.json'),w); cmp(os.path.join(ROOT,'samples/swap-wins.workload.json'))
if which=='recwins':
    cfg=dict(base, capacity_blocks=128, prefill_tokens_per_tick=1024, transfer_bytes_per_tick=8192, kv_bytes_per_token=2048, host_capacity_bytes=64*1024*1024)
    w=wl("recompute-wins","Fast prefill (1,024 tokens a tick) and a slow link (8 KiB a tick at 2 KiB per token, as with per-block copies that collapse the effective bandwidth): a 400-token victim replays in one tick but takes 100 ticks to copy out and another 100 back. Compare the four recovery modes: recompute and adaptive (which picks recompute from the estimates) finish far sooner; swap's victims sit in the copy queue.",cfg,dict(pol,recovery="recompute"),mixreqs(11,14,30))
    save(os.path.join(ROOT,'samples/recompute-wins.workload.json'),w); cmp(os.path.join(ROOT,'samples/recompute-wins.workload.json'))
if which=='livelock':
    cfg=dict(base, block_size_tokens=8, capacity_blocks=40, prefill_tokens_per_tick=16, max_ticks=3000)
    reqs=[dict(id="a",arrival_tick=0,prompt_tokens=120,output_tokens=140,priority=0),dict(id="b",arrival_tick=0,prompt_tokens=120,output_tokens=140,priority=0)]
    w=wl("livelock-next-block","Two requests that each need more than half of a 40-block pool (prompt 120 + output 140 = 33 blocks), a slow 16-token prefill budget, longest-context victims and hybrid recovery. Under the next-block guard a victim is resumed as soon as its swapped prefix fits; while it replays the rest, the other request grows into the pool, becomes the longest and is evicted in turn. From tick ~1,000 neither generates another token (a stays at 104, b at 96): 438 evictions, both censored at max_ticks, a livelock. Run with --resume-guard full-reservation: b waits until a's prompt + max output fits, a finishes, then b, with no eviction at all.",cfg,dict(pol,recovery="hybrid",victim_rule="longest-context",resume_guard="next-block"),reqs)
    save(os.path.join(ROOT,'samples/livelock-next-block.workload.json'),w); cmp(os.path.join(ROOT,'samples/livelock-next-block.workload.json')); cmp(os.path.join(ROOT,'samples/livelock-next-block.workload.json'),['--resume-guard','full-reservation'])

if which=='starve':
    cfg=dict(base, block_size_tokens=16, capacity_blocks=48, prefill_tokens_per_tick=128, wait_threshold_ticks=50, preemption_threshold=3)
    reqs=[dict(id="bg-report",arrival_tick=0,prompt_tokens=300,output_tokens=320,priority=2,tenant="batch")]
    r=random.Random(9)
    for i in range(30):
        reqs.append(dict(id=f"chat{i:02d}",arrival_tick=5+i*20+r.randint(0,4),prompt_tokens=r.randint(60,160),output_tokens=r.randint(40,100),priority=0,tenant="chat"))
    w=wl("starvation","One low-priority background request (bg-report, priority 2) shares a 48-block pool with a steady stream of priority-0 chat requests. Under priority-newest it is the victim of every pressure event: it is preempted more than preemption_threshold (3) times and waits more than wait_threshold_ticks (50) in the queue, so it carries both flags: the triangle (excessive wait) and the cross (repeated preemption). No chat request is flagged. The scheduler does not promote it: the flags observe, they do not repair. With --resume-guard full-reservation it is preempted once but waits even longer (the triangle stays); try --victim-rule last-admitted too.",cfg,dict(pol,resume_guard="next-block"),reqs)
    save(os.path.join(ROOT,'samples/starvation.workload.json'),w); cmp(os.path.join(ROOT,'samples/starvation.workload.json'))
if which=='tenants':
    cfg=dict(base, block_size_tokens=16, capacity_blocks=128, prefill_tokens_per_tick=256)
    r=random.Random(21); reqs=[]
    for i in range(6):
        reqs.append(dict(id=f"batch-{i:02d}",arrival_tick=r.randint(0,10),prompt_tokens=r.randint(150,300),output_tokens=r.randint(150,300),priority=0,tenant="batch"))
    for i in range(6):
        reqs.append(dict(id=f"chat-{i:02d}",arrival_tick=r.randint(15,60),prompt_tokens=r.randint(60,120),output_tokens=r.randint(80,160),priority=0,tenant="chat"))
    w=wl("multi-tenant","Two tenants share a 128-block pool: 'batch' sends six long requests first, 'chat' six shorter ones later. Under tenant-fair the victim comes from the tenant holding the most blocks (batch), so no chat request is evicted (batch absorbs all 49 evictions); compare with --victim-rule priority-newest (newest arrivals first: chat requests are evicted too and all six are flagged) and look at who is flagged under each rule.",cfg,dict(pol,victim_rule="tenant-fair"),reqs)
    save(os.path.join(ROOT,'samples/multi-tenant.workload.json'),w); cmp(os.path.join(ROOT,'samples/multi-tenant.workload.json')); cmp(os.path.join(ROOT,'samples/multi-tenant.workload.json'),['--victim-rule','priority-newest'])
