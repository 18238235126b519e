#!/usr/bin/python3
"""A crafted model file for the tests (issue 29): rewrites config fields of a heed model file and
drops the metadata checksum (optional: files without one load), as an attacker would. Only the
standard library (Debian's /usr/bin/python3).

Usage: craft_model.py IN OUT field=value ..."""
import json, struct, sys
data = open(sys.argv[1], 'rb').read()
n = struct.unpack('<Q', data[:8])[0]
header = json.loads(data[8:8 + n])
meta = header['__metadata__']
config = json.loads(meta['config'])
for assignment in sys.argv[3:]:
    key, value = assignment.split('=')
    config[key] = int(value)
meta['config'] = json.dumps(config, separators=(',', ':'))
meta.pop('metadata_checksum', None)
blob = json.dumps(header, separators=(',', ':')).encode()
blob += b' ' * (-len(blob) % 8)
open(sys.argv[2], 'wb').write(struct.pack('<Q', len(blob)) + blob + data[8 + n:])
