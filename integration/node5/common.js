'use strict';
// Shared helpers for the scripts driven by integration/node5_test.go.
//
// Every script takes one JSON argument (process.argv[2]) and writes one JSON
// object per line on stdout: the Go harness asserts on those lines. The
// SDK's own log goes to stderr, which the harness shows when a test fails.
const util = require('node:util');

function emit(event) {
  process.stdout.write(JSON.stringify({ ms: Date.now(), ...event }) + '\n');
}

// stderrLogger satisfies the SDK's ILogger and prefixes each line with the
// script name, so interleaved output of several scripts stays readable.
function stderrLogger(name) {
  const line = level => (...args) => {
    process.stderr.write(`${new Date().toISOString()} ${name} ${level} ${util.format(...args)}\n`);
  };
  return { info: line('INFO'), warn: line('WARN'), error: line('ERROR'), debug: () => {}, close: () => {} };
}

function sleep(ms) {
  return new Promise(resolve => setTimeout(resolve, ms));
}

// view reduces a received MessageView to what the harness checks.
function view(m) {
  return {
    messageId: m.messageId,
    topic: m.topic,
    body: m.body.toString(),
    tag: m.tag,
    keys: m.keys,
    group: m.messageGroup || undefined,
    properties: Object.fromEntries(m.properties),
    deliveryAttempt: m.deliveryAttempt,
    deliveryTimestamp: m.deliveryTimestamp ? m.deliveryTimestamp.getTime() : undefined,
    bornTimestamp: m.bornTimestamp ? m.bornTimestamp.getTime() : undefined,
    corrupted: m.corrupted === true,
  };
}

// run parses the argument, runs body(args) and exits 0, or reports the
// error as an {"event":"error"} line and exits 1. The SDK keeps timers
// (route refresh, heartbeats), so the process always exits explicitly.
function run(name, body) {
  let args;
  try {
    args = JSON.parse(process.argv[2] || '{}');
  } catch (e) {
    emit({ event: 'error', error: `bad argument: ${e}` });
    process.exit(2);
  }
  const deadline = setTimeout(() => {
    emit({ event: 'error', error: `${name}: no result within ${args.timeoutMs} ms` });
    process.exit(3);
  }, args.timeoutMs || 60000);
  deadline.unref();
  body(args, stderrLogger(name)).then(() => {
    emit({ event: 'exit' });
    process.exit(0);
  }, err => {
    // the SDK wraps errors (err.cause, sometimes twice): report the chain
    const causes = [];
    for (let c = err && err.cause; c && causes.length < 5; c = c.cause) causes.push(String(c));
    emit({ event: 'error', error: String(err && err.stack || err), cause: causes.join(' <- ') || undefined });
    process.exit(1);
  });
}

module.exports = { emit, stderrLogger, sleep, view, run };
