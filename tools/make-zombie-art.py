#!/usr/bin/env python3
"""Draws Beat Zombies' built-in art as SVG and renders it to the PNG sprite sheets in
data/zombies/ (the same sprites.json + sheets an operator may replace).

Four zombie kinds, each facing left (towards the house), in the original demo's sizes and
walk-cycle frame counts:

  0 shambler   83 x 72 points, 31 frames: arms out, a dragging limp
  1 hound     174 x 109 points, 25 frames: a big zombie dog at a gallop
  2 runner     83 x 72 points, 12 frames: a sprinter in a torn tracksuit
  3 hopper     83 x 72 points, 15 frames: a 僵尸 in a Qing robe, hopping with arms out

plus a hit pose per kind (knocked back, eyes crossed out), the "zombies won" panel's
picture (a house with zombies at the windows), the menu tile's picture, the face at the
house's windows, two gravestones and the lawn's plants. Everything is drawn here from circles,
ellipses and paths; nothing is copied.

The SVG sheets are written to tools/zombie-art/ and rendered with rsvg-convert (Debian
librsvg2-bin) at SCALE pixels per point. The PNGs are committed, so building Boardwalk
needs neither this script nor rsvg-convert.

usage: tools/make-zombie-art.py [--out data/zombies] [--svg tools/zombie-art] [--scale 1.5]
"""
import argparse
import json
import math
import os
import subprocess
import sys

OUTLINE = "#233018"
COLUMNS = 8


def fmt(v):
    return f"{v:.2f}".rstrip("0").rstrip(".")


def rot(x, y, degrees):
    r = math.radians(degrees)
    return x * math.cos(r) - y * math.sin(r), x * math.sin(r) + y * math.cos(r)


def limb(x, y, length1, angle1, length2, angle2, width, color, outline=OUTLINE):
    """Two segments from (x, y): angles in degrees from straight down, clockwise positive
    (so a positive angle swings the limb towards -x, forwards for a left-walking figure)."""
    dx, dy = rot(0, length1, angle1)
    kx, ky = x + dx, y + dy
    dx, dy = rot(0, length2, angle2)
    ex, ey = kx + dx, ky + dy
    d = f"M{fmt(x)},{fmt(y)} L{fmt(kx)},{fmt(ky)} L{fmt(ex)},{fmt(ey)}"
    return (f'<path d="{d}" fill="none" stroke="{outline}" stroke-width="{fmt(width + 2)}" '
            f'stroke-linecap="round" stroke-linejoin="round"/>'
            f'<path d="{d}" fill="none" stroke="{color}" stroke-width="{fmt(width)}" '
            f'stroke-linecap="round" stroke-linejoin="round"/>'), (ex, ey)


def eyes(cx, cy, gap, radius, hit, look=-0.8):
    """Two eyes; crossed out when hit."""
    out = []
    for ex in (cx - gap / 2, cx + gap / 2):
        if hit:
            r = radius
            out.append(f'<path d="M{fmt(ex - r)},{fmt(cy - r)} L{fmt(ex + r)},{fmt(cy + r)} '
                       f'M{fmt(ex + r)},{fmt(cy - r)} L{fmt(ex - r)},{fmt(cy + r)}" '
                       f'stroke="{OUTLINE}" stroke-width="1.4" stroke-linecap="round"/>')
        else:
            out.append(f'<circle cx="{fmt(ex)}" cy="{fmt(cy)}" r="{fmt(radius)}" fill="#F4F1C9" '
                       f'stroke="{OUTLINE}" stroke-width="0.9"/>')
            out.append(f'<circle cx="{fmt(ex + look)}" cy="{fmt(cy + 0.3)}" r="{fmt(radius * 0.4)}" fill="#B3261E"/>')
    return "".join(out)


def shambler(t, hit=False):
    """Kind 0: a shambling zombie, arms out in front, dragging its back foot."""
    a = 2 * math.pi * t
    bob = -2.2 * abs(math.sin(a))
    lean = -28 if hit else 8  # degrees; negative leans back
    hip = (52, 46 + bob)
    parts = []
    skin, skin_dark = "#8DBF68", "#6E9C50"
    shirt, trousers = "#5B7FA6", "#6A5136"
    swing = 24 * math.sin(a)
    # Far leg (drags), then far arm, drawn first and darker.
    leg, _ = limb(*hip, 12, -swing * 0.7, 12, -swing * 0.7 + 10 * max(0, math.sin(a)), 6.5, "#574330")
    parts.append(leg)
    parts.append(f'<g transform="rotate({fmt(-lean)} {fmt(hip[0])} {fmt(hip[1])})">')
    shoulder = (50, 27 + bob)
    arm_lift = 2.5 * math.sin(a + 0.6)
    if hit:
        far_arm, _ = limb(shoulder[0] + 2, shoulder[1], 10, 105, 10, 125, 5, skin_dark)
    else:
        far_arm, _ = limb(shoulder[0] + 2, shoulder[1], 11, 78 + arm_lift, 12, 86 + arm_lift, 5, skin_dark)
    parts.append(far_arm)
    parts.append("</g>")
    # Near leg with its knee bent on the forward swing.
    leg, foot = limb(*hip, 12, swing, 12, swing - 16 * max(0, math.sin(a + math.pi)), 7, trousers)
    parts.append(leg)
    parts.append(f'<ellipse cx="{fmt(foot[0] - 2)}" cy="{fmt(foot[1] + 1)}" rx="4.5" ry="2.3" fill="#3B2A1C" stroke="{OUTLINE}" stroke-width="0.8"/>')
    parts.append(f'<g transform="rotate({fmt(-lean)} {fmt(hip[0])} {fmt(hip[1])})">')
    # Torso: a torn shirt.
    top = 25 + bob
    torso = (f"M{fmt(hip[0] - 8)},{fmt(hip[1] + 1)} L{fmt(hip[0] - 10)},{fmt(top + 3)} "
             f"Q{fmt(hip[0] - 1)},{fmt(top - 2)} {fmt(hip[0] + 8)},{fmt(top + 3)} L{fmt(hip[0] + 7)},{fmt(hip[1] + 1)} "
             f"L{fmt(hip[0] + 4)},{fmt(hip[1] - 2)} L{fmt(hip[0] + 1)},{fmt(hip[1] + 2)} L{fmt(hip[0] - 3)},{fmt(hip[1] - 1)} Z")
    parts.append(f'<path d="{torso}" fill="{shirt}" stroke="{OUTLINE}" stroke-width="1.2" stroke-linejoin="round"/>')
    parts.append(f'<path d="M{fmt(hip[0] - 3)},{fmt(top + 8)} l3,4 l-2,3" fill="none" stroke="{skin}" stroke-width="1.6"/>')
    parts.append(f'<rect x="{fmt(hip[0] - 9)}" y="{fmt(hip[1] - 3)}" width="16" height="3" fill="#3B2A1C"/>')
    # Near arm reaching for the house.
    if hit:
        arm, hand = limb(shoulder[0] - 2, shoulder[1] + 1, 10, 115, 10, 140, 5.5, skin)
    else:
        arm, hand = limb(shoulder[0] - 2, shoulder[1] + 1, 11, 84 - arm_lift, 13, 92 - arm_lift, 5.5, skin)
    parts.append(arm)
    parts.append(f'<circle cx="{fmt(hand[0])}" cy="{fmt(hand[1])}" r="3.2" fill="{skin}" stroke="{OUTLINE}" stroke-width="1"/>')
    # Head, tilted with the step.
    hx, hy = 46, 14 + bob
    tilt = -18 if hit else 6 * math.sin(a)
    parts.append(f'<g transform="rotate({fmt(tilt)} {fmt(hx)} {fmt(hy + 8)})">')
    parts.append(f'<ellipse cx="{fmt(hx)}" cy="{fmt(hy)}" rx="10" ry="11" fill="{skin}" stroke="{OUTLINE}" stroke-width="1.3"/>')
    parts.append(f'<path d="M{fmt(hx - 9)},{fmt(hy - 5)} q4,-9 12,-7 q3,-4 7,1 q-2,-1 -3,3 q-5,-3 -9,1 q-3,-2 -7,2 z" fill="#3E3A2A"/>')
    parts.append(f'<ellipse cx="{fmt(hx + 6)}" cy="{fmt(hy + 4)}" rx="2.2" ry="1.5" fill="{skin_dark}"/>')
    parts.append(eyes(hx - 3.5, hy - 1, 7, 2.6, hit))
    if hit:
        parts.append(f'<ellipse cx="{fmt(hx - 4)}" cy="{fmt(hy + 6)}" rx="2.4" ry="3" fill="#3A1410"/>')
    else:
        parts.append(f'<path d="M{fmt(hx - 9)},{fmt(hy + 5)} q4,2 8,0" fill="none" stroke="{OUTLINE}" stroke-width="1.3"/>')
        parts.append(f'<path d="M{fmt(hx - 7)},{fmt(hy + 5.4)} v1.6 M{fmt(hx - 4)},{fmt(hy + 5.8)} v1.6" stroke="#F4F1C9" stroke-width="1"/>')
    parts.append("</g></g>")
    return "".join(parts)


def hound(t, hit=False):
    """Kind 1: a big zombie hound at a gallop (the wide kind)."""
    a = 2 * math.pi * t
    bob = -4 * math.sin(2 * a)
    fur, fur_dark, bone = "#7C8F62", "#5D6E48", "#E8E2C4"
    parts = []
    pitch = -7 if hit else 4 * math.sin(a)
    cx, cy = 96, (52 if hit else 56) + bob
    # Far legs first.
    def leg(x, y, phase, color, width):
        s = math.sin(a + phase)
        upper = 32 * s
        lower = upper - 28 * max(0, math.sin(a + phase + 1.2))
        path, paw = limb(x, y, 20, upper, 20, lower, width, color)
        return path + f'<ellipse cx="{fmt(paw[0] - 3)}" cy="{fmt(paw[1] + 1)}" rx="5" ry="2.6" fill="{color}" stroke="{OUTLINE}" stroke-width="1"/>'
    parts.append(f'<g transform="rotate({fmt(pitch)} {fmt(cx)} {fmt(cy)})">')
    parts.append(leg(cx - 30, cy + 8, 0.9, fur_dark, 8))
    parts.append(leg(cx + 32, cy + 6, 0.9 + math.pi, fur_dark, 9))
    # Tail.
    wag = 10 * math.sin(a * 2)
    parts.append(f'<path d="M{fmt(cx + 44)},{fmt(cy - 8)} q18,{fmt(-14 + wag)} 30,{fmt(-6 + wag)}" fill="none" stroke="{OUTLINE}" stroke-width="7" stroke-linecap="round"/>')
    parts.append(f'<path d="M{fmt(cx + 44)},{fmt(cy - 8)} q18,{fmt(-14 + wag)} 30,{fmt(-6 + wag)}" fill="none" stroke="{fur}" stroke-width="5" stroke-linecap="round"/>')
    # Body with showing ribs and a bare patch.
    parts.append(f'<ellipse cx="{fmt(cx)}" cy="{fmt(cy)}" rx="50" ry="21" fill="{fur}" stroke="{OUTLINE}" stroke-width="1.6"/>')
    parts.append(f'<ellipse cx="{fmt(cx - 6)}" cy="{fmt(cy + 4)}" rx="17" ry="11" fill="#B98A7A" stroke="{OUTLINE}" stroke-width="1"/>')
    for i in range(4):
        x = cx - 18 + i * 8
        parts.append(f'<path d="M{fmt(x)},{fmt(cy - 4)} q3,7 0,15" fill="none" stroke="{bone}" stroke-width="2.2" stroke-linecap="round"/>')
    parts.append(f'<path d="M{fmt(cx + 14)},{fmt(cy - 19)} l5,-6 l4,5 l5,-7 l3,7" fill="none" stroke="{fur_dark}" stroke-width="2" stroke-linejoin="round"/>')
    # Near legs.
    parts.append(leg(cx - 24, cy + 10, 0, fur, 9))
    parts.append(leg(cx + 38, cy + 8, math.pi, fur, 10))
    # Neck and head, reaching forward.
    head_x, head_y = cx - 56, cy - 18 + (-6 if hit else 2 * math.sin(2 * a + 0.5))
    parts.append(f'<path d="M{fmt(cx - 38)},{fmt(cy - 12)} Q{fmt(cx - 50)},{fmt(cy - 20)} {fmt(head_x + 10)},{fmt(head_y + 6)} L{fmt(head_x + 14)},{fmt(head_y + 20)} Q{fmt(cx - 44)},{fmt(cy + 4)} {fmt(cx - 34)},{fmt(cy + 8)} Z" fill="{fur}" stroke="{OUTLINE}" stroke-width="1.4"/>')
    jaw = 9 if hit else 4 + 3 * max(0, math.sin(a))
    parts.append(f'<path d="M{fmt(head_x + 6)},{fmt(head_y + 8)} L{fmt(head_x - 24)},{fmt(head_y + 10 + jaw)} L{fmt(head_x - 20)},{fmt(head_y + 15 + jaw)} L{fmt(head_x + 8)},{fmt(head_y + 18)} Z" fill="{fur_dark}" stroke="{OUTLINE}" stroke-width="1.2"/>')
    parts.append(f'<path d="M{fmt(head_x + 14)},{fmt(head_y - 6)} Q{fmt(head_x)},{fmt(head_y - 12)} {fmt(head_x - 16)},{fmt(head_y - 2)} L{fmt(head_x - 28)},{fmt(head_y + 4)} Q{fmt(head_x - 30)},{fmt(head_y + 9)} {fmt(head_x - 24)},{fmt(head_y + 10)} L{fmt(head_x + 10)},{fmt(head_y + 10)} Z" fill="{fur}" stroke="{OUTLINE}" stroke-width="1.4"/>')
    for i in range(4):
        x = head_x - 22 + i * 6
        parts.append(f'<path d="M{fmt(x)},{fmt(head_y + 9.5)} l1.5,3.5 l1.5,-3.5 z" fill="{bone}"/>')
    parts.append(f'<ellipse cx="{fmt(head_x - 28)}" cy="{fmt(head_y + 3)}" rx="3" ry="2.2" fill="#2A2A22"/>')
    parts.append(f'<path d="M{fmt(head_x + 8)},{fmt(head_y - 7)} l8,-14 l3,16 z" fill="{fur_dark}" stroke="{OUTLINE}" stroke-width="1.2" stroke-linejoin="round"/>')
    if hit:
        parts.append(eyes(head_x - 6, head_y - 2, 0.01, 3, True))
        parts.append(f'<path d="M{fmt(head_x - 18)},{fmt(head_y + 14 + jaw)} q-2,8 3,9 q3,-3 1,-9 z" fill="#D0606A" stroke="{OUTLINE}" stroke-width="0.8"/>')
    else:
        parts.append(f'<ellipse cx="{fmt(head_x - 6)}" cy="{fmt(head_y - 2)}" rx="3.6" ry="3" fill="#F2E27A" stroke="{OUTLINE}" stroke-width="1"/>')
        parts.append(f'<circle cx="{fmt(head_x - 7)}" cy="{fmt(head_y - 2)}" r="1.4" fill="#B3261E"/>')
    parts.append("</g>")
    return "".join(parts)


def runner(t, hit=False):
    """Kind 2: a sprinting zombie in a torn tracksuit, leaning into the run."""
    a = 2 * math.pi * t
    bob = -3 * abs(math.sin(a))
    skin, suit, suit_dark, stripe = "#9CC4A1", "#C8453B", "#9C3029", "#F3EEE0"
    lean = -30 if hit else 18
    hip = (48, 45 + bob)
    swing = 40 * math.sin(a)
    parts = []
    leg, _ = limb(*hip, 12, -swing, 12, -swing - 30 * max(0, math.sin(a)), 6.5, suit_dark)
    parts.append(leg)
    parts.append(f'<g transform="rotate({fmt(-lean)} {fmt(hip[0])} {fmt(hip[1])})">')
    shoulder = (48, 27 + bob)
    far_arm, _ = limb(*shoulder, 10, (100 if hit else 40 * math.sin(a)), 9, (125 if hit else 40 * math.sin(a) + 90), 4.5, suit_dark)
    parts.append(far_arm)
    parts.append("</g>")
    leg, foot = limb(*hip, 12, swing, 12, swing - 30 * max(0, math.sin(a + math.pi)), 7, suit)
    parts.append(leg)
    parts.append(f'<ellipse cx="{fmt(foot[0] - 2)}" cy="{fmt(foot[1] + 1)}" rx="4.5" ry="2.4" fill="#F3EEE0" stroke="{OUTLINE}" stroke-width="0.9"/>')
    parts.append(f'<g transform="rotate({fmt(-lean)} {fmt(hip[0])} {fmt(hip[1])})">')
    top = 25 + bob
    parts.append(f'<path d="M{fmt(hip[0] - 7)},{fmt(hip[1] + 1)} L{fmt(hip[0] - 8)},{fmt(top + 3)} Q{fmt(hip[0])},{fmt(top - 2)} {fmt(hip[0] + 7)},{fmt(top + 3)} L{fmt(hip[0] + 6)},{fmt(hip[1] + 1)} Z" fill="{suit}" stroke="{OUTLINE}" stroke-width="1.2"/>')
    parts.append(f'<path d="M{fmt(hip[0] + 5)},{fmt(top + 3)} L{fmt(hip[0] + 4.5)},{fmt(hip[1])}" stroke="{stripe}" stroke-width="1.6"/>')
    parts.append(f'<path d="M{fmt(hip[0] - 6)},{fmt(top + 12)} l4,2 l-1,4 l3,1" fill="none" stroke="{skin}" stroke-width="1.8"/>')
    arm, hand = limb(*shoulder, 10, (115 if hit else -40 * math.sin(a)), 9, (140 if hit else -40 * math.sin(a) + 95), 5, suit)
    parts.append(arm)
    parts.append(f'<circle cx="{fmt(hand[0])}" cy="{fmt(hand[1])}" r="2.8" fill="{skin}" stroke="{OUTLINE}" stroke-width="1"/>')
    hx, hy = 45, 15 + bob
    parts.append(f'<g transform="rotate({fmt(-15 if hit else 4 * math.sin(2 * a))} {fmt(hx)} {fmt(hy + 8)})">')
    parts.append(f'<ellipse cx="{fmt(hx)}" cy="{fmt(hy)}" rx="8.5" ry="10" fill="{skin}" stroke="{OUTLINE}" stroke-width="1.3"/>')
    parts.append(f'<path d="M{fmt(hx - 8)},{fmt(hy - 4)} l2,-8 l3,5 l3,-7 l3,6 l3,-6 l2,7 l2,-3 l-1,7 z" fill="#C9B458" stroke="{OUTLINE}" stroke-width="0.8"/>')
    parts.append(f'<rect x="{fmt(hx - 9)}" y="{fmt(hy - 5)}" width="17.5" height="3" rx="1" fill="{stripe}" stroke="{OUTLINE}" stroke-width="0.6"/>')
    parts.append(eyes(hx - 3, hy + 0.5, 6, 2.3, hit, look=-1))
    if hit:
        parts.append(f'<ellipse cx="{fmt(hx - 3)}" cy="{fmt(hy + 6.5)}" rx="2" ry="2.6" fill="#3A1410"/>')
    else:
        parts.append(f'<path d="M{fmt(hx - 8)},{fmt(hy + 5.5)} l6,0.8" stroke="{OUTLINE}" stroke-width="1.4" stroke-linecap="round"/>')
    parts.append("</g></g>")
    return "".join(parts)


def hopper(t, hit=False):
    """Kind 3: a 僵尸 (jiangshi): Qing robe and hat, a paper charm, arms out, hopping."""
    a = 2 * math.pi * t
    hop = 0 if hit else -9 * math.sin(math.pi * t)
    squash = 1 - 0.08 * max(0, math.cos(a)) ** 6 if not hit else 1
    robe, robe_dark, trim = "#2F4A7A", "#22375D", "#D9A93B"
    skin = "#BFCBAA"
    parts = [f'<g transform="translate(0 {fmt(70 * (1 - squash))}) scale(1 {fmt(squash)}) translate(0 {fmt(hop)})">']
    lean = -24 if hit else 0
    parts.append(f'<g transform="rotate({fmt(-lean)} 50 66)">')
    # Feet together, little black shoes.
    parts.append(f'<ellipse cx="46" cy="67" rx="5" ry="2.5" fill="#1C1C1C"/><ellipse cx="53" cy="67.5" rx="5" ry="2.5" fill="#111"/>')
    # Robe.
    parts.append(f'<path d="M41,24 Q50,20 59,24 L61,66 L38,66 Z" fill="{robe}" stroke="{OUTLINE}" stroke-width="1.3" stroke-linejoin="round"/>')
    parts.append(f'<path d="M38.5,62 L60.8,62" stroke="{trim}" stroke-width="2.4"/>')
    parts.append(f'<path d="M50,24 L50,62" stroke="{robe_dark}" stroke-width="1.2"/>')
    parts.append(f'<rect x="45" y="38" width="10" height="8" fill="{trim}" stroke="{OUTLINE}" stroke-width="0.7"/>')
    parts.append(f'<path d="M47,40 h6 M47,42 h6 M47,44 h6" stroke="{robe}" stroke-width="0.7"/>')
    # Arms straight out with long sleeves; hands hang from the wrists.
    arm_y = 30 + (0 if not hit else -10)
    for dy, color in ((-2, robe_dark), (1.5, robe)):
        y = arm_y + dy
        parts.append(f'<path d="M46,{fmt(y - 3)} L22,{fmt(y - 4)} L20,{fmt(y + 4)} L46,{fmt(y + 4)} Z" fill="{color}" stroke="{OUTLINE}" stroke-width="1.1" stroke-linejoin="round"/>')
        parts.append(f'<path d="M20.5,{fmt(y - 3)} L20,{fmt(y + 4)}" stroke="{trim}" stroke-width="1.4"/>')
        parts.append(f'<path d="M19.5,{fmt(y - 1)} q-5,0 -6,4 q0,2 2,1 l1,-1 l0,2 q1,1 2,0 l0,-2 q2,1 2,-1 z" fill="{skin}" stroke="{OUTLINE}" stroke-width="0.8"/>')
    # Head and hat.
    hx, hy = 50, 14
    parts.append(f'<ellipse cx="{hx}" cy="{hy}" rx="8.5" ry="9.5" fill="{skin}" stroke="{OUTLINE}" stroke-width="1.2"/>')
    parts.append(f'<path d="M40,9 Q50,-1 60,9 Z" fill="#1E1E22" stroke="{OUTLINE}" stroke-width="1"/>')
    parts.append(f'<rect x="40" y="7.5" width="20" height="3" rx="1" fill="#3A3A44"/>')
    parts.append(f'<circle cx="50" cy="2.2" r="2" fill="#C0392B" stroke="{OUTLINE}" stroke-width="0.6"/>')
    if hit:
        parts.append(eyes(hx - 2.5, hy + 1, 6, 2, True))
        parts.append(f'<ellipse cx="{hx - 2}" cy="{hy + 6}" rx="1.8" ry="2.2" fill="#3A1410"/>')
        # The charm flies off.
        parts.append(f'<g transform="rotate(-35 56 6)"><rect x="53" y="4" width="6" height="15" fill="#F2D24B" stroke="{OUTLINE}" stroke-width="0.6"/>'
                     f'<path d="M56,6 q2,2 0,4 q-2,2 0,4 q2,2 0,3" fill="none" stroke="#C0392B" stroke-width="1"/></g>')
    else:
        parts.append(f'<path d="M{hx - 6},{hy + 1} h3.5 M{hx + 0.5},{hy + 1} h3.5" stroke="{OUTLINE}" stroke-width="1.2" stroke-linecap="round"/>')
        parts.append(f'<path d="M{hx - 5},{hy + 5.5} h5" stroke="{OUTLINE}" stroke-width="1.1" stroke-linecap="round"/>')
        # The paper charm hanging from the hat over the face.
        sway = 2 * math.sin(a)
        parts.append(f'<g transform="rotate({fmt(sway)} 50 10)"><rect x="47" y="9.5" width="6" height="15" fill="#F2D24B" stroke="{OUTLINE}" stroke-width="0.6"/>'
                     f'<path d="M50,11 q2,2 0,4 q-2,2 0,4 q2,2 0,3.5" fill="none" stroke="#C0392B" stroke-width="1"/></g>')
    parts.append("</g></g>")
    return "".join(parts)


def house_lost():
    """The "zombies won" panel's picture, 160 x 80 points: the house, taken."""
    p = ['<rect x="0" y="66" width="160" height="14" rx="4" fill="#4E9A3A"/>']
    p.append('<path d="M30,30 L80,4 L130,30 Z" fill="#B5452F" stroke="#6B2A1C" stroke-width="1.5" stroke-linejoin="round"/>')
    p.append('<rect x="104" y="8" width="10" height="16" fill="#8E3322"/>')
    p.append('<rect x="36" y="29" width="88" height="41" fill="#E9D8B4" stroke="#8A7048" stroke-width="1.5"/>')
    p.append('<path d="M36,40 h88 M36,51 h88 M36,62 h88" stroke="#CDB891" stroke-width="1"/>')
    for x in (44, 96):
        p.append(f'<rect x="{x}" y="34" width="20" height="17" rx="2" fill="#2A1C12" stroke="#6B4B2A" stroke-width="2"/>')
    # Zombie arms reaching out of both windows.
    for x, flip in ((44, -1), (96, 1)):
        cx = x + 10
        p.append(f'<path d="M{cx - 3},45 q{flip * 8},-6 {flip * 14},-14" fill="none" stroke="{OUTLINE}" stroke-width="6" stroke-linecap="round"/>')
        p.append(f'<path d="M{cx - 3},45 q{flip * 8},-6 {flip * 14},-14" fill="none" stroke="#8DBF68" stroke-width="4" stroke-linecap="round"/>')
        p.append(f'<circle cx="{cx - 3 + flip * 14}" cy="31" r="3" fill="#8DBF68" stroke="{OUTLINE}" stroke-width="1"/>')
    # The door, open, a zombie head in it.
    p.append('<rect x="70" y="46" width="20" height="24" rx="2" fill="#2A1C12"/>')
    p.append('<path d="M90,47 L98,50 L98,70 L90,70 Z" fill="#8A5A33"/>')
    p.append(f'<ellipse cx="80" cy="56" rx="7" ry="8" fill="#8DBF68" stroke="{OUTLINE}" stroke-width="1.2"/>')
    p.append(eyes(79, 55, 6, 2, False, look=0.6))
    p.append(f'<path d="M76,60 q4,2 8,0" fill="none" stroke="{OUTLINE}" stroke-width="1.2"/>')
    return "".join(p)


def grave(variant):
    """A gravestone on a mound of earth, 30 x 40 points; two shapes so a row isn't uniform."""
    p = ['<ellipse cx="15" cy="37" rx="14" ry="3.5" fill="#6B4F2E" stroke="#3B2A1C" stroke-width="1"/>']
    if variant == 0:
        stone = "M5,37 L5,13 Q5,3 15,3 Q25,3 25,13 L25,37 Z"
    else:
        stone = "M6,37 L6,10 L25,6 L25,37 Z"  # an old slab, its top worn askew
    p.append(f'<path d="{stone}" fill="#A7AEA6" stroke="{OUTLINE}" stroke-width="1.3" stroke-linejoin="round"/>')
    highlight = "M8,35 L8,14 Q8,7 14,6" if variant == 0 else "M9,35 L9,12"
    p.append(f'<path d="{highlight}" fill="none" stroke="#C4CAC2" stroke-width="1.6" stroke-linecap="round"/>')
    # Lines where an inscription was, and a crack.
    p.append('<path d="M10,19 h10 M11,23 h8 M10,27 h10" stroke="#7B837A" stroke-width="1.4" stroke-linecap="round"/>')
    p.append(f'<path d="M21,8 l-2,5 l2,3 l-3,5" fill="none" stroke="{OUTLINE}" stroke-width="0.8"/>')
    p.append('<path d="M4,37 q3,-4 6,-1 M20,36 q3,-4 6,0" fill="none" stroke="#4E9A3A" stroke-width="1.6" stroke-linecap="round"/>')
    return "".join(p)


def flower():
    """A daisy, 20 x 20 points."""
    p = ['<path d="M10,19 q1,-5 0,-9" fill="none" stroke="#3E7A2C" stroke-width="1.4"/>']
    for k in range(6):
        x, y = rot(0, -4.2, k * 60)
        p.append(f'<ellipse cx="{fmt(10 + x)}" cy="{fmt(8 + y)}" rx="2.4" ry="2.4" fill="#FBFAF2" stroke="#9AA38F" stroke-width="0.6"/>')
    p.append('<circle cx="10" cy="8" r="2.4" fill="#F2C230" stroke="#B98A16" stroke-width="0.6"/>')
    return "".join(p)


def mushroom():
    """A red toadstool, 20 x 20 points."""
    return (f'<path d="M8,19 L8.6,11 L11.4,11 L12,19 Z" fill="#F3EEE0" stroke="{OUTLINE}" stroke-width="0.9"/>'
            f'<path d="M2.5,12 Q3,3 10,3 Q17,3 17.5,12 Z" fill="#D2452F" stroke="{OUTLINE}" stroke-width="1"/>'
            '<circle cx="7" cy="7" r="1.4" fill="#FBFAF2"/><circle cx="12.5" cy="6" r="1.1" fill="#FBFAF2"/>'
            '<circle cx="14.3" cy="9.5" r="1" fill="#FBFAF2"/>')


def tuft():
    """A tuft of long grass, 20 x 20 points."""
    blades = ["M6,19 q-1,-8 -4,-12", "M9,19 q0,-10 1,-16", "M12,19 q2,-8 6,-11", "M10,19 q-2,-6 -1,-10"]
    return "".join(f'<path d="{d}" fill="none" stroke="#3E7A2C" stroke-width="1.8" stroke-linecap="round"/>' for d in blades)


def window_face():
    """A zombie looking out of a window, 40 x 40 points (the house shows one per ten inside)."""
    skin, hair = "#8DBF68", "#3E3A2A"
    p = [f'<ellipse cx="20" cy="22" rx="12" ry="13" fill="{skin}" stroke="{OUTLINE}" stroke-width="1.4"/>']
    p.append(f'<path d="M8.5,17 q4,-11 13,-8 q4,-4 9,2 q-2,-1 -3,3 q-6,-3 -11,1 q-4,-2 -8,2 z" fill="{hair}"/>')
    p.append(eyes(19, 21, 9, 3, False, look=0.4))
    p.append(f'<path d="M13,29 q6,3 12,0" fill="none" stroke="{OUTLINE}" stroke-width="1.4"/>')
    p.append('<path d="M16,29.8 v2 M21,30 v2" stroke="#F4F1C9" stroke-width="1.1"/>')
    # Hands on the sill.
    for x in (7, 33):
        p.append(f'<ellipse cx="{x}" cy="36" rx="4.5" ry="3.2" fill="{skin}" stroke="{OUTLINE}" stroke-width="1"/>')
    return "".join(p)


def menu_tile():
    """The menu tile's picture, 100 x 100 points: a grave and a zombie stepping out from it."""
    p = ['<ellipse cx="52" cy="92" rx="44" ry="7" fill="#000000" fill-opacity="0.18"/>']
    p.append(f'<g transform="translate(54 28) scale(1.55)">{grave(0)}</g>')
    p.append(f'<g transform="translate(-8 10) scale(1.2)">{shambler(0.3)}</g>')
    return "".join(p)


# name, drawing, size in points, walk frames, and how much the drawing is shrunk about its
# feet so hair, hats and the hopper's jump stay inside the frame.
KINDS = [
    ("shambler", shambler, 83, 72, 31, 0.92),
    ("hound", hound, 174, 109, 25, 0.96),
    ("runner", runner, 83, 72, 12, 0.92),
    ("hopper", hopper, 83, 72, 15, 0.84),
]


def svg_document(width, height, scale, body):
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{fmt(width * scale)}" height="{fmt(height * scale)}" '
            f'viewBox="0 0 {fmt(width)} {fmt(height)}">{body}</svg>\n')


def sheet(draw, width, height, frames, hit, scale, fit):
    """Frames left to right, COLUMNS a row, each in its own cell of whole pixels (a cell is
    the drawing's width x height points, rounded up to whole pixels)."""
    cells = []
    pitch_x, pitch_y = math.ceil(width * scale) / scale, math.ceil(height * scale) / scale
    for i in range(frames):
        x, y = fmt((i % COLUMNS) * pitch_x), fmt((i // COLUMNS) * pitch_y)
        feet_x, feet_y = width * 0.55, height - 1
        cells.append(f'<g transform="translate({x} {y})"><svg width="{width}" height="{height}" overflow="hidden">'
                     f'<g transform="translate({fmt(feet_x)} {fmt(feet_y)}) scale({fit}) translate({fmt(-feet_x)} {fmt(-feet_y)})">'
                     f'{draw(i / frames, hit)}</g></svg></g>')
    columns = min(frames, COLUMNS)
    rows = (frames + COLUMNS - 1) // COLUMNS
    return columns * pitch_x, rows * pitch_y, "".join(cells)


def render(svg_path, png_path):
    try:
        subprocess.run(["rsvg-convert", "-o", png_path, svg_path], check=True)
    except FileNotFoundError:
        sys.exit("make-zombie-art: rsvg-convert not found (apt-get install librsvg2-bin)")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default="data/zombies")
    parser.add_argument("--svg", default="tools/zombie-art")
    parser.add_argument("--scale", type=float, default=1.5, help="pixels per point (at most 2)")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    os.makedirs(args.svg, exist_ok=True)
    scale = args.scale
    kinds = []
    for name, draw, width, height, frames, fit in KINDS:
        pw, ph = math.ceil(width * scale), math.ceil(height * scale)
        entry = {"sheet": f"{name}.png", "frames": frames, "frameWidth": pw, "frameHeight": ph}
        for suffix, count, hit in (("", frames, False), ("-hit", 1, True)):
            w, h, body = sheet(draw, width, height, count, hit, scale, fit)
            svg_path = f"{args.svg}/{name}{suffix}.svg"
            with open(svg_path, "w", encoding="utf-8") as f:
                f.write(svg_document(w, h, scale, body))
            render(svg_path, f"{args.out}/{name}{suffix}.png")
        entry["hit"] = f"{name}-hit.png"
        kinds.append(entry)
        print(f"{args.out}/{name}.png: {frames} frames of {pw}x{ph}, and {name}-hit.png")
    # Single pictures: name, drawing, size in points, pixels per point (each drawn at about
    # the largest size the kiosk shows it).
    pictures = [("house-lost", house_lost, 160, 80, scale * 2), ("tile", menu_tile, 100, 100, 2.4),
                ("window", window_face, 40, 40, 1.6), ("grave-1", lambda: grave(0), 30, 40, 2),
                ("grave-2", lambda: grave(1), 30, 40, 2), ("flower", flower, 20, 20, 2),
                ("mushroom", mushroom, 20, 20, 2), ("tuft", tuft, 20, 20, 2)]
    for name, draw, width, height, pixels in pictures:
        svg_path = f"{args.svg}/{name}.svg"
        with open(svg_path, "w", encoding="utf-8") as f:
            f.write(svg_document(width, height, pixels, draw()))
        render(svg_path, f"{args.out}/{name}.png")
    with open(f"{args.out}/sprites.json", "w", encoding="utf-8") as f:
        f.write('{\n  "source": "drawn by tools/make-zombie-art.py",\n  "lost": "house-lost.png",\n'
                '  "tile": "tile.png",\n  "window": "window.png",\n  "graves": ["grave-1.png", "grave-2.png"],\n'
                '  "plants": ["flower.png", "mushroom.png", "tuft.png"],\n  "kinds": [\n')
        f.write(",\n".join("    " + json.dumps(k) for k in kinds))
        f.write("\n  ]\n}\n")
    print(f"{args.out}/sprites.json")


if __name__ == "__main__":
    main()
