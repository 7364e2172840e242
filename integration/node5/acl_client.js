'use strict';
// acl_client.js: a Producer and a SimpleConsumer with sessionCredentials
// against an ACL-enabled gRPC front end.
//
// Argument (JSON): endpoints, topic, group, count, accessKey, accessSecret,
// timeoutMs. Sends count messages "acl-<i>", then receives and acks them.
// Lines: {"event":"sent",i,messageId}, {"event":"acked",messageId,body},
//        {"event":"settled",count}, {"event":"exit"}; a refused startup
//        ends with {"event":"error",...}.
const { Producer, SimpleConsumer } = require('rocketmq-client-nodejs');
const { emit, run } = require('./common');

run('acl', async (args, logger) => {
  const sessionCredentials = { accessKey: args.accessKey, accessSecret: args.accessSecret };
  const producer = new Producer({
    endpoints: args.endpoints, namespace: '', topic: args.topic, logger, requestTimeout: 5000, sessionCredentials,
  });
  await producer.startup();
  for (let i = 0; i < args.count; i++) {
    const r = await producer.send({ topic: args.topic, body: Buffer.from(`acl-${i}`) });
    emit({ event: 'sent', i, messageId: r.messageId });
  }
  await producer.shutdown();

  const consumer = new SimpleConsumer({
    endpoints: args.endpoints, namespace: '', consumerGroup: args.group,
    subscriptions: new Map([[ args.topic, '*' ]]), awaitDuration: 2000, requestTimeout: 5000,
    logger, sessionCredentials,
  });
  await consumer.startup();
  const acked = new Set();
  while (acked.size < args.count) {
    for (const m of await consumer.receive(16, 15000)) {
      await consumer.ack(m);
      acked.add(m.messageId);
      emit({ event: 'acked', messageId: m.messageId, body: m.body.toString() });
    }
  }
  emit({ event: 'settled', count: acked.size });
  await consumer.shutdown();
});
