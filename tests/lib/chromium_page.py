#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Open a local page in headless Chromium and report what it did.

chromium_page.py PAGE SCREENSHOT.png JS_EXPRESSION

Drives Chromium over the DevTools protocol on a pipe (--remote-debugging-pipe,
fds 3 and 4; no port, no network): loads file://PAGE, records every console
message, log entry, exception and network request, takes a full-page
screenshot and evaluates JS_EXPRESSION in the page (it must return a
JSON-able value; the page's own scripts, if any, are not needed for it).
Prints one JSON object: {"console": [...], "errors": [...], "requests":
[...], "value": ..., "width": W, "height": H}; a dialog a script opened
(alert) is dismissed and is an error. Exits non-zero (with the
reason on stderr) when Chromium cannot be started or the page not loaded.
"""
import base64
import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import time


class Browser:
    def __init__(self, profile):
        exe = shutil.which('chromium') or shutil.which('chromium-browser')
        if not exe:
            sys.exit('no chromium (Debian package chromium)')
        to_child_r, self.to_child = os.pipe()
        self.from_child, from_child_w = os.pipe()
        # Chromium reads commands on fd 3 and writes on fd 4 (copies first:
        # the pipe's own fds may be 3 or 4).
        def fds():
            r, w = os.dup(to_child_r), os.dup(from_child_w)
            os.dup2(r, 3)
            os.dup2(w, 4)
        self.proc = subprocess.Popen(
            [exe, '--headless', '--no-sandbox', '--remote-debugging-pipe',
             '--user-data-dir=' + profile, '--no-first-run', '--disable-gpu',
             '--disable-extensions', '--disable-background-networking',
             '--disable-component-update', '--disable-sync', 'about:blank'],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=open(os.path.join(profile, 'stderr.txt'), 'w'), close_fds=True,
            preexec_fn=fds, pass_fds=(3, 4))
        os.close(to_child_r)
        os.close(from_child_w)
        self.stderr = os.path.join(profile, 'stderr.txt')
        self.buf = b''
        self.next_id = 0
        self.events = []
        self.dialogs = []

    def post(self, method, params=None, session=None):
        self.next_id += 1
        msg = {'id': self.next_id, 'method': method, 'params': params or {}}
        if session:
            msg['sessionId'] = session
        os.write(self.to_child, json.dumps(msg).encode() + b'\0')
        return self.next_id

    def send(self, method, params=None, session=None):
        return self.wait_reply(self.post(method, params, session), method)

    def read_message(self, deadline):
        while b'\0' not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.from_child], [], [], left)[0]:
                sys.exit('chromium: no answer in time (%s)' % self.dialogs)
            chunk = os.read(self.from_child, 1 << 20)
            if not chunk:
                sys.exit('chromium exited: %s' % open(self.stderr).read()[-2000:])
            self.buf += chunk
        raw, self.buf = self.buf.split(b'\0', 1)
        m = json.loads(raw)
        if m.get('method') == 'Page.javascriptDialogOpening':
            # alert() blocks the page: dismiss it, say so (a script ran).
            self.dialogs.append(m['params'].get('message'))
            self.post('Page.handleJavaScriptDialog', {'accept': False}, m.get('sessionId'))
        return m

    def wait_reply(self, msg_id, method):
        deadline = time.monotonic() + 60
        while True:
            m = self.read_message(deadline)
            if m.get('id') == msg_id:
                if 'error' in m:
                    sys.exit('chromium: %s: %s' % (method, m['error']))
                return m.get('result', {})
            self.events.append(m)

    def wait_event(self, method):
        deadline = time.monotonic() + 60
        for i, m in enumerate(self.events):
            if m.get('method') == method:
                return self.events.pop(i)
        while True:
            m = self.read_message(deadline)
            if m.get('method') == method:
                return m
            self.events.append(m)

    def close(self):
        try:
            self.send('Browser.close')
        except (SystemExit, OSError):
            pass
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def report(events):
    out = {'console': [], 'errors': [], 'requests': []}
    for m in events:
        p, kind = m.get('params', {}), m.get('method')
        if kind == 'Runtime.consoleAPICalled':
            text = ' '.join(str(a.get('value', a.get('description', ''))) for a in p['args'])
            out['console'].append({'level': p['type'], 'text': text})
        elif kind == 'Log.entryAdded':
            e = p['entry']
            out['console'].append({'level': e['level'], 'text': e['text']})
        elif kind == 'Runtime.exceptionThrown':
            out['errors'].append(p['exceptionDetails'].get('text', 'exception'))
        elif kind == 'Network.requestWillBeSent':
            out['requests'].append(p['request']['url'])
        elif kind == 'Network.loadingFailed':
            out['errors'].append('failed to load: %s' % p.get('errorText'))
    return out


def main():
    page, shot, expr = sys.argv[1:4]
    profile = tempfile.mkdtemp(prefix='cgperf-chromium-')
    b = Browser(profile)
    try:
        target = b.send('Target.createTarget', {'url': 'about:blank'})['targetId']
        s = b.send('Target.attachToTarget', {'targetId': target, 'flatten': True})['sessionId']
        for domain in ('Page', 'Runtime', 'Log', 'Network'):
            b.send(domain + '.enable', session=s)
        b.events.clear()
        b.send('Emulation.setDeviceMetricsOverride',
               {'width': 1280, 'height': 900, 'deviceScaleFactor': 1, 'mobile': False},
               session=s)
        b.send('Page.navigate', {'url': 'file://' + os.path.abspath(page)}, session=s)
        b.wait_event('Page.loadEventFired')
        size = b.send('Page.getLayoutMetrics', session=s)['cssContentSize']
        png = b.send('Page.captureScreenshot',
                     {'format': 'png', 'captureBeyondViewport': True,
                      'clip': {'x': 0, 'y': 0, 'width': size['width'],
                               'height': size['height'], 'scale': 1}},
                     session=s)['data']
        with open(shot, 'wb') as f:
            f.write(base64.b64decode(png))
        value = b.send('Runtime.evaluate', {'expression': expr, 'returnByValue': True},
                       session=s)
        out = report(b.events)
        out['errors'] += ['dialog: %s' % d for d in b.dialogs]
        if 'exceptionDetails' in value:
            sys.exit('the expression failed: %r' % value['exceptionDetails'])
        out['value'] = value['result'].get('value')
        out['width'], out['height'] = size['width'], size['height']
        print(json.dumps(out))
    finally:
        b.close()
        shutil.rmtree(profile, ignore_errors=True)


if __name__ == '__main__':
    main()
