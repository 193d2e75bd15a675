package dev.baton.internal.tx;

/**
 * What a unit of work answered, and whether it ran again after an attempt lost its reply: that attempt may have
 * committed on the server, so a count in {@code value} may miss the rows it changed.
 *
 * @param <T> the value
 */
public record Attempted<T>(T value, boolean afterLostReply) {}
