package dev.baton;

/**
 * A handler's decision about one claimed row, for {@link ClaimQueue#applyAll}.
 *
 * @param row the claimed row
 * @param outcome what to do with it
 * @param <S> the enum of states
 */
public record Decision<S extends Enum<S>>(ClaimedRow<S> row, Outcome<S> outcome) {}
