#!/usr/bin/python3
"""What a trained model's attention learned in its scorer's own parameters (the Snakefile's probes).

The mechanistic checks ask two things of the weights themselves, not only of the translations:
did `scaled-dot` with a learned temperature undo the 1/√K, and did `general` (from the identity
or not) stay a scaled dot product or learn a change of basis? Reads a heed model file (a
safetensors container, docs/model-format.md) and prints one TSV line (with --header, the column
names first); "-" where the model has no such parameter:

  temperature   τ = exp(θ) of scaled-dot's "decoder/attention/log_temperature"
  scale         τ / √K, K the key size: the factor on qᵀh, which `dot` has at 1
  identity      for a square "decoder/attention/weight" W (general's W_a: e = qᵀ W_a h), the
                scaled identity nearest to it, αI with α = tr(W) / d: α
  residual      ‖W − αI‖_F / ‖W‖_F, the share of W that is not a scaled identity (0: W_a is `dot`
                times α; near 1: a change of basis, as a random W is)

Pure Python (no NumPy): the largest tensor read is one d × d matrix.

  /usr/bin/python3 parameters.py [--header] MODEL.heed
"""
import array
import json
import math
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
import reporting as common  # noqa: E402  (experiments/common/reporting.py)

COLUMNS = ["temperature", "scale", "identity", "residual"]
TEMPERATURE = "decoder/attention/log_temperature"
WEIGHT = "decoder/attention/weight"


def read_header(f):
    """The safetensors header: {name: {dtype, shape, data_offsets}}, and where the data begin."""
    prefix = f.read(8)
    if len(prefix) != 8:
        raise ValueError("shorter than a safetensors header")
    (length,) = struct.unpack("<Q", prefix)
    if length > 100 << 20:
        raise ValueError(f"a header of {length} bytes")
    header = json.loads(f.read(length))
    if not isinstance(header, dict):
        raise ValueError("a header that is not a JSON object")
    return header, 8 + length


def read_f32(f, header, start, name):
    """The named F32 tensor's values, checked against its shape."""
    entry = header[name]
    begin, end = entry["data_offsets"]
    count = math.prod(entry["shape"])
    if entry["dtype"] != "F32" or end - begin != 4 * count:
        raise ValueError(f"{name}: {entry['dtype']} {entry['shape']}, not F32 of its shape")
    f.seek(start + begin)
    values = array.array("f")
    values.frombytes(f.read(end - begin))
    if len(values) != count:
        raise ValueError(f"{name}: the file ends inside it")
    if sys.byteorder != "little":
        values.byteswap()
    return values


def measure(path):
    """The columns of one model file, each a float or None."""
    with open(path, "rb") as f:
        header, start = read_header(f)
        config = json.loads(header.get("__metadata__", {}).get("config", "{}"))
        temperature = scale = identity = residual = None
        if TEMPERATURE in header:
            (theta,) = read_f32(f, header, start, TEMPERATURE)
            temperature = math.exp(theta)
            # scaled-dot needs query size = key size: the encoder's states, `hidden` wide.
            scale = temperature / math.sqrt(config["hidden"])
        if WEIGHT in header and len(set(header[WEIGHT]["shape"])) == 1 and \
                len(header[WEIGHT]["shape"]) == 2:
            d = header[WEIGHT]["shape"][0]
            w = read_f32(f, header, start, WEIGHT)
            trace = math.fsum(w[i * d + i] for i in range(d))
            squares = math.fsum(x * x for x in w)
            identity = trace / d
            # ‖W − αI‖² = ‖W‖² − 2α tr W + α² d = ‖W‖² − tr(W)² / d at α = tr W / d.
            residual = math.sqrt(max(squares - trace * trace / d, 0.0) / squares) if squares else 0.0
    return [temperature, scale, identity, residual]


def main():
    parser = common.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model", help="a heed model file")
    parser.add_argument("--header", action="store_true", help="print the column names first")
    args = parser.parse_args()
    try:
        values = measure(args.model)
    except OSError as error:
        print(f"parameters.py: {error}", file=sys.stderr)
        return 66
    except (ValueError, KeyError, TypeError) as error:
        print(f"parameters.py: {args.model}: not a readable heed model: {error}", file=sys.stderr)
        return 65
    if args.header:
        print("\t".join(COLUMNS))
    print("\t".join("-" if v is None else f"{v:.6g}" for v in values))
    return 0


if __name__ == "__main__":
    sys.exit(main())
