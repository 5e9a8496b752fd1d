import { nonNegative, positive } from "./guards";

/**
 * Bytes, arithmetic intensity and energy per sample across batch sizes (F-37, Table 9): the weight read is shared by
 * the batch, the activation traffic is not. Energy constants default to the chapter's 160 pJ/byte of DRAM traffic
 * and 2.3 pJ/FLOP of FP32 arithmetic.
 */

export interface PerSampleEnergyInput {
  weightBytes: number;
  /** Activation traffic per sample (written once, read once). */
  activationBytesPerSample: number;
  flopsPerSample: number;
  picojoulesPerByte?: number;
  picojoulesPerFlop?: number;
}

export interface PerSampleEnergy {
  batch: number;
  weightBytesPerSample: number;
  bytesPerSample: number;
  /** FLOP per byte */
  arithmeticIntensity: number;
  energyJoules: number;
  /** Share of the energy spent moving data. */
  movementShare: number;
}

export function perSampleEnergy(input: PerSampleEnergyInput, batch: number): PerSampleEnergy {
  positive("batch", batch);
  nonNegative("weightBytes", input.weightBytes);
  nonNegative("activationBytesPerSample", input.activationBytesPerSample);
  positive("flopsPerSample", input.flopsPerSample);
  const pjByte = nonNegative("picojoulesPerByte", input.picojoulesPerByte ?? 160);
  const pjFlop = nonNegative("picojoulesPerFlop", input.picojoulesPerFlop ?? 2.3);
  const weightBytesPerSample = input.weightBytes / batch;
  const bytesPerSample = weightBytesPerSample + input.activationBytesPerSample;
  positive("weightBytes", bytesPerSample); // weights and activations cannot both be zero: intensity would be infinite
  const movement = bytesPerSample * pjByte * 1e-12;
  const energyJoules = movement + input.flopsPerSample * pjFlop * 1e-12;
  return {
    batch,
    weightBytesPerSample,
    bytesPerSample,
    arithmeticIntensity: input.flopsPerSample / bytesPerSample,
    energyJoules,
    movementShare: energyJoules > 0 ? movement / energyJoules : 0,
  };
}
