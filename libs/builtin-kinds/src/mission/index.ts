export * from './mission.kind';
export * from './mission.input';
export * from './mission.creation';
export * from './mission-tools';
export * from './scripted-plan';
export * from './checks';
export * from './checks/json-pointer';
export * from './checks/children-completed.check';
