#!/usr/bin/python3
"""Prints the parameters of a heed model under decoder/attention/ and those of the Luong
attentional layer (decoder/attn_out/), tab-separated, from the model file's safetensors header.

  count_params.py MODEL.heed     (run.sh, stage "runs"; the Python standard library only)
"""
import json
import math
import struct
import sys


def count(header, prefix):
    return sum(math.prod(entry["shape"]) for name, entry in header.items()
               if name.startswith(prefix))


def main():
    if len(sys.argv) != 2:
        print("usage: count_params.py MODEL", file=sys.stderr)
        return 64
    with open(sys.argv[1], "rb") as f:
        header = json.loads(f.read(struct.unpack("<Q", f.read(8))[0]))
    print(count(header, "decoder/attention/"), count(header, "decoder/attn_out/"), sep="\t")
    return 0


if __name__ == "__main__":
    sys.exit(main())
