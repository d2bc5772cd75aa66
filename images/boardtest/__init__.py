"""The virtual boards' test rig, shared by the system test (images/virtual-board/
test_system.py), the display board check (scripts/display-board-check.py), the stock
board (images/deb/test_stock_board.py) and the image tests:

- board: a VirtualBoard, the kiosk's image under QEMU (TCG), and its input (taps, keys, coins);
- qemu: QEMU's channels (HMP, QMP, the serial log, the guest's root command channel);
- images: building the boards' images and disks, and what the profiles say;
- screendump, wav: screen and sound analysis;
- procstat: CPU per thread, from /proc;
- kiosk: the kiosk on a board as the checks see it (its unit, journal, screen, counters);
- results: the PASS/FAIL lines and the closing 'N passed, M failed';
- checks/: the system test's checks, one module per concern.
"""
