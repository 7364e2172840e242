'use strict';
// producer.js: sends messages with the SDK's Producer and reports each send.
//
// Argument (JSON): endpoints, topic, mode, timeoutMs, sslEnabled, and per mode:
//   normal: count, tag, prefix            -> NORMAL messages "<prefix>-<i>"
//   fifo:   groups [names], perGroup      -> FIFO messages, groups interleaved,
//                                           body "<group>-<seq>", sent one by one
//   delay:  delaysMs [ms...]              -> DELAY messages due at now+delay
//   tx:     actions ["commit"|"rollback"|"check-commit"|"check-rollback"...]
//           -> one transaction each; "check-*" ones are left open and resolved
//              by the checker when the server asks (RecoverOrphanedTransaction);
//              the script then keeps answering checks until stdin is closed.
// Lines: {"event":"started"}, {"event":"sent",i,messageId,transactionId,offset,...},
//        {"event":"check",messageId,body,resolution}, {"event":"exit"}.
const { Producer } = require('rocketmq-client-nodejs');
const { emit, run } = require('./common');

// TransactionResolution values of apache.rocketmq.v2 (not exported by the
// package's index).
const COMMIT = 1;
const ROLLBACK = 2;

run('producer', async (args, logger) => {
  const checker = {
    async check(m) {
      const onCheck = m.properties.get('onCheck');
      const resolution = onCheck === 'commit' ? COMMIT : ROLLBACK;
      emit({ event: 'check', messageId: m.messageId, body: m.body.toString(), resolution: onCheck });
      return resolution;
    },
  };
  const producer = new Producer({
    endpoints: args.endpoints,
    namespace: '',
    sslEnabled: args.sslEnabled === true,
    topic: args.topic,
    logger,
    requestTimeout: args.requestTimeoutMs || 5000,
    checker: args.mode === 'tx' ? checker : undefined,
  });
  await producer.startup();
  emit({ event: 'started', clientId: producer.clientId });

  const send = async (i, options, tx) => {
    const receipt = await producer.send({ topic: args.topic, ...options }, tx);
    emit({
      event: 'sent', i, messageId: receipt.messageId, transactionId: receipt.transactionId || undefined,
      offset: receipt.offset, body: options.body.toString(), group: options.messageGroup,
      deliverAt: options.deliveryTimestamp ? options.deliveryTimestamp.getTime() : undefined,
    });
    return receipt;
  };

  switch (args.mode) {
    case 'normal':
      for (let i = 0; i < args.count; i++) {
        const prefix = args.prefix || 'n';
        await send(i, {
          body: Buffer.from(`${prefix}-${i}`), tag: args.tag, keys: [ `${prefix}-key-${i}` ],
          properties: new Map([[ 'i', String(i) ]]),
        });
      }
      break;
    case 'fifo': {
      let i = 0;
      for (let seq = 0; seq < args.perGroup; seq++) {
        for (const group of args.groups) {
          await send(i++, { body: Buffer.from(`${group}-${seq}`), messageGroup: group, tag: args.tag });
        }
      }
      break;
    }
    case 'delay':
      for (const [ i, delay ] of args.delaysMs.entries()) {
        await send(i, { body: Buffer.from(`delay-${i}`), deliveryTimestamp: new Date(Date.now() + delay) });
      }
      break;
    case 'tx': {
      for (const [ i, action ] of args.actions.entries()) {
        const tx = producer.beginTransaction();
        const onCheck = action.startsWith('check-') ? action.slice('check-'.length) : action;
        await send(i, {
          body: Buffer.from(`tx-${action}-${i}`), properties: new Map([[ 'onCheck', onCheck ]]),
        }, tx);
        if (action === 'commit') await tx.commit();
        if (action === 'rollback') await tx.rollback();
        emit({ event: 'ended', i, action });
      }
      break;
    }
    default:
      throw new Error(`unknown mode ${args.mode}`);
  }
  if (args.untilStdinClosed) {
    emit({ event: 'waiting' });
    await new Promise(resolve => {
      process.stdin.on('end', resolve);
      process.stdin.on('error', resolve);
      process.stdin.resume();
    });
  }
  await producer.shutdown();
});
