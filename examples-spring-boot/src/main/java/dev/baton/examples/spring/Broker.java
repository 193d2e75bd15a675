package dev.baton.examples.spring;

import dev.baton.Outbox;
import dev.baton.OutboxMessage;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The message broker of the example: logs and keeps what the outbox dispatcher delivers. Thread-safe. */
public final class Broker implements Outbox.Sink {
    private static final Logger LOG = LoggerFactory.getLogger(Broker.class);
    private final List<OutboxMessage> delivered = new CopyOnWriteArrayList<>();

    @Override
    public void deliver(OutboxMessage message) {
        LOG.info("broker: {} {}", message.topic(), message.payloadText());
        delivered.add(message);
    }

    /** Messages delivered so far. */
    public List<OutboxMessage> delivered() {
        return List.copyOf(delivered);
    }
}
