#!/usr/bin/env python3
# Generates the simulator's speed benchmark: 24 hours, 64 static slots, a few thousand jobs,
# 5 s polling. Usage: day64.py > /tmp/day64.scenario; time kite policy simulate -q /tmp/day64.scenario
# (issue 5 budget: under a second in a Release build).
import random

random.seed(1)
lines = ["NUM_CPUS = 64", "NUM_SLOTS = 64", "MEMORY = 65536", "POLLING_INTERVAL = 5",
         "PREEMPT = KeyboardIdle < 60", "MAXJOBRETIREMENTTIME = 600", 'RANK = Owner == "vip"', "---"]
steps = []
for s in range(1, 65):
    slot = f"slot{s}"
    t = random.randint(0, 60)
    while t < 86000:
        steps.append((t, f'claim {slot} [Owner="u{s}"; JobLeaseDuration=100000]'))
        steps.append((t, f'activate {slot} [Owner="u{s}"; JobUniverse=5]'))
        d = random.randint(600, 2400)
        steps.append((t + d, f"starter-exit {slot} 0"))
        steps.append((t + d, f"release {slot}"))
        t += d + random.randint(1, 30)
for h in range(24):
    steps.append((h * 3600 + 1800, "set KeyboardIdle=3600"))
steps.append((86399, "expect slot1 Unclaimed"))
steps.sort(key=lambda x: x[0])
print("\n".join(lines + [f"at {a} {b}" for a, b in steps]))
