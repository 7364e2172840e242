'use strict';
// simple_consumer.js: receives with the SDK's SimpleConsumer.
//
// Argument (JSON): endpoints, sslEnabled, group, topic, tag ("*" by default), expect (how
// many distinct message ids to settle), batch, invisibleMs (receive's
// invisible duration), awaitMs (long polling), quietMs (after settling, keep
// receiving this long to catch extra deliveries), maxRetryAttempts (receive
// retries on INTERNAL_ERROR, the SDK's 3 by default), timeoutMs, and mode:
//   ack:    ack every message when it arrives.
//   change: first delivery -> changeInvisibleDuration(changeMs), no ack;
//           later delivery -> ack.
//   expire: first delivery -> nothing (the invisible time runs out);
//           later delivery -> ack.
// Lines: {"event":"started"}, {"event":"received",...view, receivedAt},
//        {"event":"changed",messageId}, {"event":"acked",messageId},
//        {"event":"settled"}, {"event":"exit"}.
const { SimpleConsumer } = require('rocketmq-client-nodejs');
const { emit, run, view } = require('./common');

run('simple', async (args, logger) => {
  const consumer = new SimpleConsumer({
    endpoints: args.endpoints,
    namespace: '',
    sslEnabled: args.sslEnabled === true,
    consumerGroup: args.group,
    subscriptions: new Map([[ args.topic, args.tag || '*' ]]),
    awaitDuration: args.awaitMs || 5000,
    maxRetryAttempts: args.maxRetryAttempts || 3,
    requestTimeout: args.requestTimeoutMs || 5000,
    logger,
  });
  await consumer.startup();
  emit({ event: 'started', clientId: consumer.clientId });

  const mode = args.mode || 'ack';
  const seen = new Set();
  const settled = new Set();
  const handle = async m => {
    emit({ event: 'received', ...view(m) });
    const first = !seen.has(m.messageId);
    seen.add(m.messageId);
    if (first && mode === 'change') {
      await consumer.changeInvisibleDuration(m, args.changeMs);
      emit({ event: 'changed', messageId: m.messageId });
      return;
    }
    if (first && mode === 'expire') {
      return;
    }
    await consumer.ack(m);
    settled.add(m.messageId);
    emit({ event: 'acked', messageId: m.messageId });
  };
  const receive = async () => {
    const messages = await consumer.receive(args.batch || 16, args.invisibleMs || 15000);
    for (const m of messages) {
      await handle(m);
    }
  };
  while (settled.size < args.expect) {
    await receive();
  }
  emit({ event: 'settled', count: settled.size });
  const quietEnd = Date.now() + (args.quietMs || 0);
  while (Date.now() < quietEnd) {
    await receive();
  }
  await consumer.shutdown();
});
