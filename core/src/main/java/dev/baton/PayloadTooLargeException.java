package dev.baton;

/**
 * A value larger than Baton is configured to store, refused before any SQL runs (a database without strict mode
 * could truncate it silently, one with a small packet limit would drop the connection).
 */
public final class PayloadTooLargeException extends BatonException {
    private static final long serialVersionUID = 1L;
    private final long size;
    private final long limit;

    /**
     * Creates an exception naming what was refused, its size and the limit.
     *
     * @param what e.g. {@code response of idempotency key 'k' in scope 's'}
     * @param size the size in bytes
     * @param limit the configured maximum in bytes
     */
    public PayloadTooLargeException(String what, long size, long limit) {
        super(what + " is " + size + " bytes, more than the configured maximum of " + limit + " bytes");
        this.size = size;
        this.limit = limit;
    }

    /** The size of the refused value, in bytes. */
    public long size() {
        return size;
    }

    /** The configured maximum, in bytes. */
    public long limit() {
        return limit;
    }
}
