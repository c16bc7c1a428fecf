#!/usr/bin/env python3
"""Writes the recorded-style edge files used by the input-replay tests (deterministic).

Buttons are wired to ground with pull-ups (active-low): a press is a falling edge. Every
transition bounces for 0.1-2 ms, as a real contact does.
"""
import random

rng = random.Random(4)
BASE = 5123.0  # a monotonic timestamp, like gpiomon prints


def transition(line, level, t, edges):
    """level: the physical level after the transition (1 = high)."""
    edges.append((t, line, level))
    burst = rng.uniform(0.0001, 0.002)
    offsets = sorted(rng.uniform(0, burst) for _ in range(2 * rng.randint(1, 4) - 1)) + [burst]
    current = level
    for off in offsets:
        current ^= 1
        edges.append((t + off, line, current))
    assert current == level


def press(line, start, length, edges):
    transition(line, 0, start, edges)
    transition(line, 1, start + length, edges)


buttons = []
press(17, 0.000, 0.090, buttons)   # play_pause tap            -> toggle on release
press(27, 0.600, 0.150, buttons)   # next                      -> next
press(27, 1.300, 1.350, buttons)   # next held                 -> seek +10 (long), seek +10 (repeat)
press(22, 3.300, 0.060, buttons)   # previous                  -> previous
press(13, 3.800, 0.040, buttons)   # encoder switch (short only) -> toggle on the press edge
press(17, 4.800, 1.000, buttons)   # play_pause held           -> stop
buttons.sort()
with open("buttons.gpiomon", "w") as f:
    f.write("# gpiomon (libgpiod 1.6) gpiochip0 17 27 22 13, buttons to ground with pull-ups\n")
    for t, line, level in buttons:
        kind = " RISING EDGE" if level else "FALLING EDGE"
        s = f"{BASE + t:.9f}"
        f.write(f"event: {kind} offset: {line} timestamp: [{s:>20}]\n")

# Encoder on 5 (A) and 6 (B), common to ground: at a detent both lines are high.
# Clockwise: A falls first. Logical (active-low) states 00 -> 10 -> 11 -> 01 -> 00.
encoder = []
state = [1, 1]  # physical A, B
t = 0.0
sequence = [1] * 5 + [-1] * 3
for direction in sequence:
    order = [(1, 0), (1, 1), (0, 1), (0, 0)] if direction > 0 else [(0, 1), (1, 1), (1, 0), (0, 0)]
    for a_logical, b_logical in order:
        a, b = 1 - a_logical, 1 - b_logical
        if a != state[0]:
            transition(5, a, t, encoder)
            state[0] = a
        if b != state[1]:
            transition(6, b, t, encoder)
            state[1] = b
        t += 0.010
    t += 0.040
encoder.sort()
with open("encoder.txt", "w") as f:
    f.write("# seconds line value: a knob turned 5 detents clockwise, then 3 back\n")
    for t, line, level in encoder:
        f.write(f"{t:.6f} {line} {level}\n")
