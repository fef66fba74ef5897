"""corrupt_cache_entries.py DIR MODE: damages every <key>.entry in DIR.

MODE flip: inverts a byte in the middle of the payload (checksum mismatch);
truncate: cuts the file in half; swap: gives each entry another's contents
(a foreign entry: valid, but for another key). Used by compile-cache.test.
"""
import os
import sys

folder, mode = sys.argv[1], sys.argv[2]
paths = sorted(os.path.join(folder, name) for name in os.listdir(folder)
               if name.endswith(".entry"))
if not paths:
    sys.exit(f"no cache entries in {folder}")
contents = [open(path, "rb").read() for path in paths]
for i, path in enumerate(paths):
    data = bytearray(contents[i])
    if mode == "flip":
        data[len(data) // 2] ^= 0xFF
    elif mode == "truncate":
        data = data[:len(data) // 2]
    elif mode == "swap":
        if len(paths) < 2:
            sys.exit("swap needs two entries")
        data = contents[(i + 1) % len(paths)]
    else:
        sys.exit(f"unknown mode {mode}")
    with open(path, "wb") as f:
        f.write(data)
