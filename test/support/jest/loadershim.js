// Gatsby's runtime expects the loader global; see Gatsby's unit-testing guide.
global.___loader = {
  enqueue: jest.fn(),
};
