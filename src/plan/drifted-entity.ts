/** An entity a saved plan touches that changed in the live store since planning. */
export interface DriftedEntity {
  type: string;
  id: string;
  label: string;
  reason: string;
}
