# SPDX-License-Identifier: GPL-2.0-only
# A small DNS server for tests, on UDP port 53 of a loopback address it
# picks (127.53.x.y), written to READY_FILE once it is bound.
#   dns_server.py READY_FILE LOG_FILE ZONE_FILE   answers from ZONE_FILE
#   dns_server.py READY_FILE LOG_FILE --ignore    reads queries, never answers
# ZONE_FILE is read again for every query: lines "NAME A ADDRESS TTL". A name
# it has gets its A records (no AAAA: an empty NOERROR answer); any other
# name gets NXDOMAIN. A line "IGNORE" makes it stop answering. Each query is logged as "WALLCLOCK NAME TYPE ID".
import os
import random
import socket
import struct
import sys
import time

ready_file, log_file, zone = sys.argv[1], sys.argv[2], sys.argv[3]
TYPES = {1: 'A', 28: 'AAAA'}


def bind():
    for _ in range(100):
        addr = '127.53.%d.%d' % (random.randint(1, 254), random.randint(1, 254))
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        try:
            s.bind((addr, 53))
            return s, addr
        except OSError:
            s.close()
    sys.exit('no free 127.53.x.y:53')


def question(pkt):
    """(name, qtype, end offset of the question) of a query."""
    i, labels = 12, []
    while pkt[i]:
        labels.append(pkt[i + 1:i + 1 + pkt[i]].decode('ascii', 'replace'))
        i += 1 + pkt[i]
    qtype, _ = struct.unpack('!HH', pkt[i + 1:i + 5])
    return '.'.join(labels).lower(), qtype, i + 5


def records(name):
    out = []
    with open(zone) as f:
        for line in f:
            parts = line.split()
            if len(parts) == 4 and parts[0].lower().rstrip('.') == name and parts[1] == 'A':
                out.append((socket.inet_aton(parts[2]), int(parts[3])))
    return out


def ignoring():
    with open(zone) as f:
        return any(line.strip() == 'IGNORE' for line in f)


def answer(pkt, name, qtype, qend):
    rrs = records(name)
    known = bool(rrs)
    if qtype != 1:
        rrs = []
    qid, flags = struct.unpack('!HH', pkt[:4])
    rcode = 0 if known else 3
    head = struct.pack('!HHHHHH', qid, 0x8180 | (flags & 0x0100) | rcode, 1, len(rrs), 0, 0)
    body = b''.join(struct.pack('!HHHIH', 0xC00C, 1, 1, ttl, 4) + addr for addr, ttl in rrs)
    return head + pkt[12:qend] + body


sock, addr = bind()
log = open(log_file, 'a', buffering=1)
with open(ready_file + '.tmp', 'w') as f:
    f.write(addr + '\n')
os.rename(ready_file + '.tmp', ready_file)
while True:
    pkt, peer = sock.recvfrom(4096)
    try:
        name, qtype, qend = question(pkt)
    except (IndexError, struct.error):
        continue
    log.write('%.3f %s %s %d\n' % (time.time(), name, TYPES.get(qtype, qtype), struct.unpack('!H', pkt[:2])[0]))
    if zone != '--ignore' and not ignoring():
        sock.sendto(answer(pkt, name, qtype, qend), peer)
