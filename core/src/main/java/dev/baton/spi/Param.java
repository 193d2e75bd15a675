package dev.baton.spi;

/**
 * A bind value supplied per execution rather than at render time, such as a fresh fencing token. Appears in the bind
 * lists of {@link SqlFragment}s; {@link BatchUpdate#execute} replaces it by {@code args[index]}.
 *
 * @param index position in the per-execution argument array
 */
public record Param(int index) {}
