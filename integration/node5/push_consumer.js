'use strict';
// push_consumer.js: consumes with the SDK's PushConsumer.
//
// Argument (JSON): endpoints, group, topic, tag, expect (distinct message ids
// to consume successfully), failFirst (answer FAILURE to each message's first
// delivery, so it must come back), shutdown (call shutdown() at the end; it
// waits for the in-flight long poll), timeoutMs.
// Lines: {"event":"started"}, {"event":"received",...view, result},
//        {"event":"settled"}, {"event":"exit"}.
const { PushConsumer, ConsumeResult } = require('rocketmq-client-nodejs');
const { emit, run, view } = require('./common');

run('push', async (args, logger) => {
  const seen = new Set();
  const consumed = new Set();
  let settle;
  const settledPromise = new Promise(resolve => { settle = resolve; });
  const consumer = new PushConsumer({
    endpoints: args.endpoints,
    namespace: '',
    sslEnabled: args.sslEnabled === true,
    consumerGroup: args.group,
    subscriptions: new Map([[ args.topic, args.tag || '*' ]]),
    requestTimeout: args.requestTimeoutMs || 5000,
    logger,
    messageListener: {
      consume(m) {
        const first = !seen.has(m.messageId);
        seen.add(m.messageId);
        const result = first && args.failFirst ? ConsumeResult.FAILURE : ConsumeResult.SUCCESS;
        emit({ event: 'received', ...view(m), result: result.toString() });
        if (result === ConsumeResult.SUCCESS) {
          consumed.add(m.messageId);
          if (consumed.size >= args.expect) settle();
        }
        return result;
      },
    },
  });
  await consumer.startup();
  emit({ event: 'started', clientId: consumer.clientId });
  await settledPromise;
  emit({ event: 'settled', count: consumed.size });
  if (args.shutdown) {
    await consumer.shutdown();
  }
});
